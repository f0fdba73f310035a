/**
 * Running external agents (Agent Client Protocol): their engine, connection, processes and
 * terminals. Only some users configure one, so this part loads the first time one starts or
 * resumes (src/extension/parts.ts); the settings, the command and the tool that start them stay
 * in the start bundle.
 */
export { externalEngineForRestore, externalEngineForResume, restartExternalProcess, startExternalChild, startExternalRoot } from '../../core/external';
export { setExternalAgentToken } from './externalAgentToken';
