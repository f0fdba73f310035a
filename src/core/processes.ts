/**
 * The processes Arbor starts, a part loaded on first use (src/core/parts.ts): one run_command
 * call (tools/runCommandRun.ts, its process in tools/commandProcess.ts), and finding and
 * signalling every process a command or an external agent started (processTree.ts), which
 * external agents' processes and terminals use too.
 */
export { newProcessTag, rootOf, signalProcesses } from './processTree';
export { execute as executeCommand } from './tools/commandProcess';
export { runCommand } from './tools/runCommandRun';
