/**
 * The command sandbox's working parts, a part loaded by the first command that asks for a
 * sandbox (src/core/parts.ts): probing the machine, starting a command under bubblewrap with the
 * network filter, reading the settings (zod), a sandboxed plan and its words, and what a command's result says was blocked. What the editor holds from the
 * start is only CommandSandbox (settings, plans and their descriptions).
 */
export { probeSandbox, sandboxAvailability } from './availability';
export { blockedPaths } from './blockedPaths';
export { BUILTIN_DENY_READ, describePlan, planOn, PROTECTED_IN_RUN_FOLDER, sandboxReport } from './sandboxPlan';
export { launchSandboxed } from './sandboxLaunch';
export { parseSandboxSettings } from './settings';
