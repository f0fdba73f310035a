/**
 * The command line a `command:` rule is matched against when a program is started with an
 * argument vector and an environment (an external agent's `terminal/create`), not with a shell
 * line (`run_command`).
 *
 * Invariants:
 * - The subject is the shell command line that would run exactly that program, those arguments
 *   and that environment: every word that is not plainly one word is single-quoted, and the
 *   agent's environment is written first as `NAME=value` assignments. Read back by a POSIX
 *   shell, the subject gives the same program, arguments and environment, so a rule matches
 *   what will run and nothing else (`touch M "git status"` is not `git status`).
 * - An environment is part of what a rule matches: `command: git status` does not match
 *   `git status` with `GIT_CONFIG_COUNT=1` set; only a rule that names the same assignments (or
 *   `command: *`, every command line) does. It is always shown to the person asked.
 * - Only `sh -c <line>` or `bash -c <line>` (that exact shell, exactly those two arguments) is
 *   read as the shell line it runs, and only when the line is free of shell operators (the test
 *   prefix rules apply): then `sh -c "npm test"` is `npm test`. Any other shell call is matched
 *   as the program and arguments it is.
 * - The agent cannot set `PATH` (in any letter case): which program a name starts would no longer
 *   be the one the person or the rule meant, so such a command is refused, not asked about. A
 *   name that is not a variable name (`A B`, `X=Y`, empty) is refused too.
 */
import { isShellFree } from './approvalRules';

export interface CommandToRun {
  program: string;
  args: readonly string[];
  /** Variables the agent adds to (or changes in) Arbor's environment, in its order. */
  env: ReadonlyArray<{ name: string; value: string }>;
}

export type CommandSubject =
  | { ok: true; subject: string; detail: string }
  | { ok: false; reason: string };

/** The shells whose `-c <line>` is read as the line itself. */
const SHELLS = new Set(['sh', 'bash', '/bin/sh', '/bin/bash']);
/** A word a shell reads as itself, unquoted (no glob, expansion, quote or separator). */
const PLAIN_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `word` as one shell word: itself when plain, else single-quoted. */
export function shellWord(word: string): string {
  return PLAIN_WORD.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The program word: also quoted when it holds `=`, which a shell would read as an assignment. */
function programWord(program: string): string {
  return program.includes('=') ? `'${program.replace(/'/g, `'\\''`)}'` : shellWord(program);
}

/** The subject a rule matches and the detail a person is shown, or why the command is refused. */
export function commandSubject(command: CommandToRun): CommandSubject {
  for (const { name } of command.env) {
    if (name.toUpperCase() === 'PATH') return { ok: false, reason: 'an agent cannot set PATH: which program a name starts must stay the one Arbor\'s own environment finds.' };
    if (!VARIABLE_NAME.test(name)) return { ok: false, reason: `${JSON.stringify(name)} is not an environment variable name.` };
  }
  const assignments = command.env.map(({ name, value }) => `${name}=${shellWord(value)}`);
  const shellLine = shellLineOf(command);
  const words = shellLine !== undefined ? [shellLine] : [programWord(command.program), ...command.args.map(shellWord)];
  const subject = [...assignments, ...words].join(' ');
  const detail = [
    subject,
    `Program and arguments: ${JSON.stringify([command.program, ...command.args])}`,
    ...(command.env.length > 0 ? ['Environment set by the agent:', ...command.env.map(({ name, value }) => `  ${name}=${JSON.stringify(value)}`)] : []),
  ];
  return { ok: true, subject, detail: detail.join('\n') };
}

/** The line of `sh -c <line>` when it is shell-free; undefined for any other command. */
function shellLineOf(command: CommandToRun): string | undefined {
  if (!SHELLS.has(command.program) || command.args.length !== 2 || command.args[0] !== '-c') return undefined;
  const line = command.args[1].trim();
  return line !== '' && isShellFree(line) ? line : undefined;
}
