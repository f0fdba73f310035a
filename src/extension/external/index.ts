/** External agents (Agent Client Protocol) in the editor: settings, secrets, the run command and its notifications. */
export { registerExternalAgents, type ExternalAgents } from './externalAgentCommands';
export { ExternalAgentSettings } from './externalAgentSettings';
