import * as z from 'zod';
import { ArborError } from '../errors';
import { once } from '../once';

/**
 * An external agent as the user configures it (`arbor.externalAgents`): a program that speaks
 * the Agent Client Protocol over its standard input and output. Settings are a trust boundary:
 * each entry is parsed here, and a bad one is named and refused, never half-used. Secrets
 * (API keys) are never settings: `secretEnv` only names the variables whose values the editor
 * reads from its secret storage.
 */

const envName = once(() => z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name (letters, digits, _)'));

export const externalAgentConfigSchema = once(() =>
  z.strictObject({
    name: z.string().trim().min(1).max(64),
    command: z.string().trim().min(1).max(1_000),
    args: z.array(z.string().max(4_000)).max(100).default([]),
    env: z.record(envName(), z.string().max(10_000)).default({}),
    /** Variables whose values come from the editor's secret storage, never from settings. */
    secretEnv: z.array(envName()).max(20).default([]),
    /**
     * Start the agent's own process in the command sandbox (writes only in its run folder, the
     * network through the filter). Opt-in: the agent then never starts without a sandbox.
     */
    sandbox: z.boolean().optional(),
  }),
);

export type ExternalAgentConfig = z.infer<ReturnType<typeof externalAgentConfigSchema>>;

export interface ParsedExternalAgents {
  agents: ExternalAgentConfig[];
  /** One line per entry that was refused, naming it and why. */
  problems: string[];
}

/**
 * Every valid entry of the setting; invalid entries (and a second entry under a name already
 * taken) are reported in `problems` and left out.
 */
export function parseExternalAgents(raw: unknown): ParsedExternalAgents {
  if (raw === undefined || raw === null) return { agents: [], problems: [] };
  if (!Array.isArray(raw)) return { agents: [], problems: ['arbor.externalAgents must be a list of agents ({ "name", "command", "args", "env" }).'] };
  const agents: ExternalAgentConfig[] = [];
  const problems: string[] = [];
  raw.forEach((entry: unknown, index) => {
    const parsed = externalAgentConfigSchema().safeParse(entry);
    const label = typeof (entry as { name?: unknown } | null)?.name === 'string' ? `"${(entry as { name: string }).name}"` : `#${index + 1}`;
    if (!parsed.success) {
      problems.push(`External agent ${label} is ignored: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'entry'}: ${i.message}`).join('; ')}.`);
      return;
    }
    if (agents.some((a) => a.name === parsed.data.name)) {
      problems.push(`External agent ${label} is ignored: another agent already has that name.`);
      return;
    }
    agents.push(parsed.data);
  });
  return { agents, problems };
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

/** The command line as a person would type it, for messages. */
export function commandLineOf(config: Pick<ExternalAgentConfig, 'command' | 'args'>): string {
  return [config.command, ...config.args].map((part) => (/^[\w@%+=:,./-]+$/.test(part) ? part : JSON.stringify(part))).join(' ');
}
