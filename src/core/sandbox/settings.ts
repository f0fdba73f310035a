import * as z from 'zod';
import { once } from '../once';

/**
 * The sandbox settings (`arbor.sandbox.*`) as the core uses them. Settings are a trust boundary:
 * each key is parsed on its own, so one bad value is named, replaced by its default, and leaves
 * the other keys as the user wrote them.
 *
 * Invariants:
 * - the default mode is `preferred`: commands are sandboxed wherever the platform has one;
 * - `autoAllow` is off unless the user turns it on;
 * - nothing here widens what a sandboxed command may write: writes stay in the run's folder and
 *   the sandbox's own temp folder, whatever the settings say.
 */

export const SANDBOX_MODES = ['preferred', 'required', 'off'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** A domain the network filter lets through: `registry.npmjs.org`, or `*.example.com` for its subdomains. */
const domainPattern = once(() =>
  z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/, 'a domain such as registry.npmjs.org or *.example.com'),
);
const envName = once(() => z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name'));
const folderPath = once(() => z.string().trim().min(1).max(1_000));

export interface SandboxSettings {
  mode: SandboxMode;
  /** A command that will run sandboxed runs without asking (rules and the read deny-list still apply). */
  autoAllow: boolean;
  /** Domains a sandboxed command may reach through the filter; none by default. */
  networkAllow: readonly string[];
  /** Whether a sandboxed command may reach servers on this machine's loopback (localhost). */
  allowLoopback: boolean;
  /** Paths a sandboxed command cannot read, in addition to the built-in list (`~` is the home folder). */
  denyRead: readonly string[];
  /** Secret-looking environment variables that are passed to sandboxed commands all the same. */
  envAllow: readonly string[];
}

export const DEFAULT_SANDBOX_SETTINGS: Readonly<SandboxSettings> = Object.freeze({
  mode: 'preferred',
  autoAllow: false,
  networkAllow: [],
  allowLoopback: false,
  denyRead: [],
  envAllow: [],
});

/** The raw values of the settings, as the editor reads them (undefined: not set). */
export type RawSandboxSettings = Partial<Record<keyof SandboxSettings, unknown>>;

/** `value` parsed by `schema`, or (reported, naming the setting and the default used) `fallback`. */
function field<T>(key: string, value: unknown, schema: z.ZodType<T>, fallback: T, expected: string, fallbackWords: string, onProblem: (message: string) => void): T {
  if (value === undefined || value === null) return fallback;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? ` (item ${issue.path.join('.')}: ${issue.message})` : '';
  onProblem(`arbor.${key} must be ${expected}${where}; ${fallbackWords}.`);
  return fallback;
}

/** The settings from raw values; a bad value is reported (naming the setting and the default used) and replaced. */
export function parseSandboxSettings(raw: RawSandboxSettings, onProblem: (message: string) => void): SandboxSettings {
  const d = DEFAULT_SANDBOX_SETTINGS;
  return {
    mode: field('sandbox.mode', raw.mode, z.enum(SANDBOX_MODES), d.mode, `one of ${SANDBOX_MODES.join(', ')}`, `using "${d.mode}"`, onProblem),
    autoAllow: field('sandbox.autoAllow', raw.autoAllow, z.boolean(), d.autoAllow, 'true or false', 'using false (sandboxed commands are asked about)', onProblem),
    networkAllow: field('sandbox.network.allow', raw.networkAllow, z.array(domainPattern()).max(200), d.networkAllow, 'a list of domains', 'no domain is allowed', onProblem),
    allowLoopback: field('sandbox.network.allowLoopback', raw.allowLoopback, z.boolean(), d.allowLoopback, 'true or false', 'using false (loopback is closed)', onProblem),
    denyRead: field('sandbox.filesystem.denyRead', raw.denyRead, z.array(folderPath()).max(200), d.denyRead, 'a list of paths', 'only the built-in list is denied', onProblem),
    envAllow: field('sandbox.env.allow', raw.envAllow, z.array(envName()).max(200), d.envAllow, 'a list of variable names', 'no secret-looking variable is passed', onProblem),
  };
}
