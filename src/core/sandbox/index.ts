/** The command sandbox: settings, the machine's sandbox, and what a sandboxed command may touch. */
export { CommandSandbox, type CommandSandboxOptions, type SandboxLaunch, type SandboxPlan } from './commandSandbox';
export { BUILTIN_DENY_READ, PROTECTED_IN_RUN_FOLDER } from './sandboxPlan';
export { sandboxPart } from '../parts';
export { probeSandbox, sandboxAvailability, type SandboxAvailability } from './availability';
export { DEFAULT_SANDBOX_SETTINGS, parseSandboxSettings, SANDBOX_MODES, type RawSandboxSettings, type SandboxMode, type SandboxSettings } from './settings';
export { filterSecrets, isSecretName } from './sandboxEnv';
export { blockedPaths } from './blockedPaths';
export { hostAllowed, isLoopbackHost } from './networkFilter';
