import * as z from 'zod';
import { once } from '../once';
import { isArborError } from '../errors';
import type { Runtime } from '../runtime';
import { errorResult, jsonResult } from '../tools/catalog';
import type { RuntimeTool } from '../tools/context';
import { defineTool } from '../tools/defineTool';
import type { Agent } from '../agents/agent';
import { findExternalAgent, type ExternalAgentConfig } from './config';
import type { ExternalStartOptions } from './startExternal';
import type { AgentDefinition } from '../definitions/types';
import { ArborError } from '../errors';

/**
 * A definition given to an external agent: its instructions go ahead of the task and its name
 * is the node's, but the agent runs its own tools on its own model, which Arbor cannot bound.
 * So a definition that would bound them is refused rather than half applied.
 */
function externalDefinition(definition: AgentDefinition): AgentDefinition {
  const bounds = (['tools', 'limits', 'model'] as const).filter((k) => definition[k] !== undefined);
  if (bounds.length === 0) return definition;
  throw new ArborError(
    'DEFINITION_INVALID',
    `The agent definition "${definition.name}" sets ${bounds.join(', ')}, which an external agent (its own tools and model) cannot be held to; give it a definition without them, or use delegate_task or start_subagent.`,
    { definition: definition.name },
  );
}

/** Starts an external agent as a continuable child of `parent` (startExternalChild, or what loads it on first use). */
export type ExternalChildStarter = (runtime: Runtime, parent: Agent, options: ExternalStartOptions) => Agent;

/** Where the tool finds the configured external agents and their secrets (the editor's settings and secret storage). */
export interface ExternalAgentDirectory {
  list(): readonly ExternalAgentConfig[];
  /** The values of the agent's `secretEnv` variables that are set; never from settings. */
  secrets(config: ExternalAgentConfig): Promise<Record<string, string>>;
  /** A served agent's token (`url` entries), when one is stored. */
  token?(config: ExternalAgentConfig): Promise<string | undefined>;
}

export const startExternalAgentArgsSchema = once(() =>
  z.object({
    agent: z.string().trim().min(1).max(64).describe('The name of a configured external agent (the setting arbor.externalAgents), such as "Gemini".'),
    task: z.string().trim().min(1).max(100_000).describe('The complete task: the external agent sees nothing of your conversation.'),
    label: z.string().trim().min(1).max(60).optional().describe('A short name shown in the Agents view (defaults to the agent\'s name).'),
    definition: z.string().trim().min(1).max(64).optional().describe('The name of an agent definition whose instructions the external agent gets before the task.'),
  }),
);

/**
 * `start_external_agent`: an Arbor agent delegates to an external agent (any Agent Client
 * Protocol agent the user configured). The external agent becomes a continuable child: its
 * reports reach the caller after each of its turns, `send_message` gives it more work, and it
 * is stopped and ended like any subagent. As a delegated agent it is never allowed to ask the
 * human: its permission requests are answered by rules or denied.
 */
export function startExternalAgentTool(runtime: Runtime, directory: ExternalAgentDirectory, startChild: ExternalChildStarter): RuntimeTool {
  return defineTool({
    name: 'start_external_agent',
    description:
      'Start an external agent (another vendor\'s coding agent that the user configured) as a continuable subagent on a task. ' +
      'Returns its agent_id at once; its report after each of its turns reaches you as a message, and send_message gives it more work. ' +
      `Configured agents: ${directory.list().map((a) => a.name).join(', ') || 'none'}.`,
    schema: startExternalAgentArgsSchema,
    readOnly: false,
    async run(args, ctx) {
      try {
        const config = findExternalAgent(directory.list(), args.agent);
        const definition = args.definition === undefined ? undefined : externalDefinition(runtime.definitions.get(args.definition));
        const secretEnv = await directory.secrets(config);
        const prompt = definition ? `${definition.prompt}\n\n---\n\n${args.task}` : args.task;
        const token = () => directory.token?.(config) ?? Promise.resolve(undefined);
        const child = startChild(runtime, ctx.agent, { config, prompt, label: args.label ?? definition?.name, secretEnv, token, definition });
        return jsonResult({ agent_id: child.id, label: child.label, external_agent: config.name, ...(definition ? { definition: definition.name } : {}), status: 'started' });
      } catch (err) {
        if (isArborError(err)) return errorResult(err);
        throw err;
      }
    },
  });
}
