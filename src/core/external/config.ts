import type * as z from 'zod';
import { ArborError } from '../errors';
import { externalAgentsSettingPart } from '../parts';
import type { LocalAgentEntry, ParsedExternalAgents, RemoteAgentEntry } from './externalAgentsSetting';

/**
 * An external agent as the user configures it (`arbor.externalAgents`): a program that speaks
 * the Agent Client Protocol over its standard input and output (`command`), or an agent served
 * over the network (`url`: WebSocket or streamable HTTP). Settings are a trust boundary: each
 * entry is parsed (externalAgentsSetting.ts), and a bad one is named and refused, never
 * half-used. Secrets (API keys, a served agent's token) are never settings: `secretEnv` only
 * names the variables whose values the editor reads from its secret storage, and a served
 * agent's token is kept there too.
 */

/** An agent Arbor starts as a program on this machine (or through ssh, docker exec, ...). */
export type LocalAgentConfig = LocalAgentEntry;
/** An agent served over the network, reached at `url`; it has no environment, so no `secretEnv` (its token is kept apart). */
export type RemoteAgentConfig = RemoteAgentEntry;
export type ExternalAgentConfig = LocalAgentConfig | RemoteAgentConfig;

export type { ParsedExternalAgents };

/**
 * Every valid entry of the setting; invalid entries (and a second entry under a name already
 * taken) are reported in `problems` and left out. The parser loads on first use
 * (externalAgentsSetting.ts): a setting that is not there costs nothing.
 */
export function parseExternalAgents(raw: unknown): ParsedExternalAgents {
  if (raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0)) return { agents: [], problems: [] };
  return externalAgentsSettingPart().parseExternalAgents(raw);
}

/** The schema of one entry (from the parser's part). */
export function externalAgentConfigSchema(): z.ZodType<ExternalAgentConfig> {
  return externalAgentsSettingPart().externalAgentConfigSchema();
}

/** The one entry named `name`, or EXTERNAL_AGENT_CONFIG_INVALID naming the choices. */
export function findExternalAgent(agents: readonly ExternalAgentConfig[], name: string): ExternalAgentConfig {
  const found = agents.find((a) => a.name === name);
  if (found) return found;
  const known = agents.map((a) => a.name);
  throw new ArborError(
    'EXTERNAL_AGENT_CONFIG_INVALID',
    known.length
      ? `No external agent is named "${name}"; the configured ones are ${known.map((n) => `"${n}"`).join(', ')}.`
      : `No external agent is configured; add one to the setting arbor.externalAgents.`,
    { name, known },
  );
}

/** The command line as a person would type it (a served agent's address), for messages. */
export function commandLineOf(config: Pick<LocalAgentConfig, 'command' | 'args'> | Pick<RemoteAgentConfig, 'url'>): string {
  if ('url' in config) return config.url;
  return [config.command, ...config.args].map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : JSON.stringify(part))).join(' ');
}
