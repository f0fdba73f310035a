import * as z from 'zod';
import { once } from '../once';

/**
 * The parser of the setting `arbor.externalAgents` (see config.ts), a part of its own
 * (dist/externalAgentsSetting.js, src/core/parts.ts): only someone who configured an external
 * agent loads it, and activation without one never builds its schemas. Settings are a trust
 * boundary: each entry is parsed here, and a bad one is named and refused, never half-used.
 */

const envName = once(() => z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name (letters, digits, _)'));
const agentName = once(() => z.string().trim().min(1).max(64));

const localAgentSchema = once(() =>
  z.strictObject({
    name: agentName(),
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

/**
 * A served agent: its address, reached with the SDK's WebSocket (ws://, wss://) or streamable
 * HTTP (http://, https://) transport. Credentials never sit in the address (a setting is not
 * secret storage): a token goes in with Arbor: Set External Agent Token..., sent as
 * `Authorization: Bearer`. Keys that belong to a program (args, env, ...) are refused.
 */
const remoteAgentSchema = once(() =>
  z.strictObject({
    name: agentName(),
    url: z
      .string()
      .trim()
      .max(2_000)
      .regex(/^(wss?|https?):\/\/[^\s/?#@]+([/?#]\S*)?$/, 'a ws://, wss://, http:// or https:// address without user or password')
      .refine((text) => URL.canParse(text), 'not an address'),
  }),
);

/** One entry: exactly one of `command` (a program Arbor starts) or `url` (an agent served elsewhere). */
export const externalAgentConfigSchema = once(() =>
  z.unknown().transform((entry, ctx): ExternalAgentEntry => {
    const keys = Object.keys(entry ?? 0);
    const remote = keys.includes('url');
    const parsed = remote !== keys.includes('command') ? (remote ? remoteAgentSchema() : localAgentSchema()).safeParse(entry) : undefined;
    if (parsed?.success) return parsed.data;
    for (const issue of parsed?.error.issues ?? [{ message: 'give "command" (a program to start) or "url" (where it is served)', path: [] }]) {
      ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    }
    return z.NEVER;
  }),
);

/** An agent Arbor starts as a program on this machine (or through ssh, docker exec, ...). */
export type LocalAgentEntry = z.infer<ReturnType<typeof localAgentSchema>>;
/** An agent served over the network, reached at `url`; it has no environment, so no `secretEnv` (its token is kept apart). */
export type RemoteAgentEntry = z.infer<ReturnType<typeof remoteAgentSchema>> & { readonly secretEnv?: undefined };
export type ExternalAgentEntry = LocalAgentEntry | RemoteAgentEntry;

export interface ParsedExternalAgents {
  agents: ExternalAgentEntry[];
  /** One line per entry that was refused, naming it and why. */
  problems: string[];
}

/**
 * Every valid entry of the setting; invalid entries (and a second entry under a name already
 * taken) are reported in `problems` and left out.
 */
export function parseExternalAgents(raw: unknown): ParsedExternalAgents {
  if (!Array.isArray(raw)) return { agents: [], problems: ['arbor.externalAgents must be a list of agents ({ "name", "command", "args", "env" }).'] };
  const agents: ExternalAgentEntry[] = [];
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

