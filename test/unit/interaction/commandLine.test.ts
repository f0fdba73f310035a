import assert from 'node:assert/strict';
import fc from 'fast-check';
import { commandSubject, ruleForSubject, ruleMatches, type CommandToRun } from '../../../src/core/interaction';

/**
 * Command rules against what an external agent's terminal/create would really run: a program,
 * its arguments and an environment. The subject is read back here as a POSIX shell reads a line
 * of words (single quotes, backslash escapes, leading NAME=value assignments), independently of
 * how Arbor writes it.
 */

interface Token {
  text: string;
  /** An environment assignment: a leading NAME=value whose name and "=" are unquoted. */
  assignment: boolean;
}

/** The words of a line made of plain characters, single-quoted parts and backslash escapes, split on spaces. */
function readLine(line: string): Token[] {
  const tokens: Token[] = [];
  let text: string | undefined;
  let raw = '';
  let quoted = false;
  const end = () => {
    if (text === undefined) return;
    const unquotedName = /^[A-Za-z_][A-Za-z0-9_]*=/.exec(raw);
    const assignment = unquotedName !== null && tokens.every((t) => t.assignment);
    tokens.push({ text, assignment });
    text = undefined;
    raw = '';
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted) {
      if (c === "'") quoted = false;
      else text += c;
      raw += '\0';
    } else if (c === ' ') end();
    else if (c === "'") {
      quoted = true;
      text ??= '';
      raw += '\0';
    } else if (c === '\\') {
      text = (text ?? '') + line[++i];
      raw += '\0';
    } else {
      text = (text ?? '') + c;
      raw += c;
    }
  }
  assert.equal(quoted, false, `an unclosed quote in ${line}`);
  end();
  return tokens;
}

const expectedTokens = (command: CommandToRun): Token[] => [
  ...command.env.map(({ name, value }) => ({ text: `${name}=${value}`, assignment: true })),
  ...[command.program, ...command.args].map((text) => ({ text, assignment: false })),
];

const isShellCall = (c: CommandToRun) => ['sh', 'bash', '/bin/sh', '/bin/bash'].includes(c.program) && c.args.length === 2 && c.args[0] === '-c';
const refusedName = (name: string) => name.toUpperCase() === 'PATH' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name);

const word = fc.string({ maxLength: 8, unit: fc.constantFrom(...'ab-./=\'" ;&|$`\\*~#()é'.split(''), '\n') });
const program = fc.oneof(fc.constantFrom('git', 'npm', 'sh', 'bash', 'touch', 'env', 'A=1', 'git status'), word);
const args = fc.oneof(fc.array(fc.oneof(fc.constantFrom('status', '-c', 'git status', 'M', 'x y'), word), { maxLength: 4 }), fc.tuple(fc.constant('-c'), fc.oneof(fc.constantFrom('git status', 'npm test', 'echo a; touch M'), word)));
const variable = fc.record({ name: fc.oneof(fc.constantFrom('GIT_CONFIG_COUNT', 'GIT_CONFIG_VALUE_0', 'FOO', 'A'), fc.constantFrom('PATH', 'Path', 'path', 'A B', 'X=Y', '', '1X')), value: word });
const command = fc.record({ program, args, env: fc.array(variable, { maxLength: 3 }) });

describe('command rules × environments (property)', () => {
  it('the subject, read as a shell reads it, runs exactly the program, arguments and environment; a bad or PATH variable is refused', () => {
    fc.assert(
      fc.property(command, (c) => {
        const subject = commandSubject(c);
        if (c.env.some((v) => refusedName(v.name))) {
          assert.equal(subject.ok, false);
          return true;
        }
        assert.ok(subject.ok);
        // `sh -c <line>` with a line free of shell operators (the characters the README lists) is read as that line.
        const line = isShellCall(c) ? c.args[1].trim() : '';
        if (line !== '' && !/[;&|<>`$()\\\r\n]/.test(line)) {
          assert.ok(subject.subject.endsWith(line), subject.subject);
          const env = readLine(subject.subject.slice(0, subject.subject.length - line.length).trimEnd());
          assert.deepEqual(env, expectedTokens({ ...c, program: '', args: [] }).slice(0, c.env.length));
        } else assert.deepEqual(readLine(subject.subject), expectedTokens(c), subject.subject);
        return true;
      }),
      { numRuns: 2_000 },
    );
  });

  it('with any environment set, no rule written for the command without it matches (only "*" does)', () => {
    fc.assert(
      fc.property(command, (c) => {
        if (c.env.length === 0 || c.env.some((v) => refusedName(v.name))) return true;
        const subject = commandSubject(c);
        assert.ok(subject.ok);
        const bare = { ...c, env: [] };
        const written: string[] = [[c.program, ...c.args].join(' '), ...c.args];
        const exact = ruleForSubject('run-command', (commandSubject(bare) as { subject: string }).subject);
        if (exact) written.push(exact.pattern);
        for (let k = 0; k <= c.args.length; k++) written.push(`${(commandSubject({ ...bare, args: c.args.slice(0, k) }) as { subject: string }).subject} *`);
        for (const pattern of written) {
          if (pattern.trim() === '' || pattern.trim() === '*') continue;
          assert.ok(!ruleMatches({ kind: 'command', pattern }, 'run-command', subject.subject), `"command: ${pattern}" matched ${subject.subject}`);
        }
        assert.ok(ruleMatches({ kind: 'command', pattern: '*' }, 'run-command', subject.subject));
        return true;
      }),
      { numRuns: 2_000 },
    );
  });

  it('a prefix rule for a command\'s first words allows only commands that start with those words, environment included', () => {
    fc.assert(
      fc.property(command, command, fc.nat({ max: 4 }), (a, b, k) => {
        if ([...a.env, ...b.env].some((v) => refusedName(v.name)) || isShellCall(a) || isShellCall(b)) return true;
        const prefix = commandSubject({ ...a, args: a.args.slice(0, k) });
        const other = commandSubject(b);
        assert.ok(prefix.ok && other.ok);
        if (!ruleMatches({ kind: 'command', pattern: `${prefix.subject} *` }, 'run-command', other.subject)) return true;
        const wanted = readLine(prefix.subject);
        assert.deepEqual(readLine(other.subject).slice(0, wanted.length), wanted, `"${prefix.subject} *" matched ${other.subject}`);
        return true;
      }),
      { numRuns: 2_000 },
    );
  });

  it('the examples from the issue', () => {
    const subject = (c: CommandToRun) => {
      const s = commandSubject(c);
      assert.ok(s.ok);
      return s.subject;
    };
    assert.equal(subject({ program: 'touch', args: ['M', 'git status'], env: [] }), "touch M 'git status'");
    assert.equal(subject({ program: 'sh', args: ['-c', 'git status'], env: [] }), 'git status');
    assert.equal(subject({ program: 'sh', args: ['-c', 'git status; touch M'], env: [] }), "sh -c 'git status; touch M'");
    const env = [
      { name: 'GIT_CONFIG_COUNT', value: '1' },
      { name: 'GIT_CONFIG_KEY_0', value: 'core.fsmonitor' },
      { name: 'GIT_CONFIG_VALUE_0', value: 'touch M; false' },
    ];
    assert.equal(subject({ program: 'git', args: ['status'], env }), "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch M; false' git status");
    assert.ok(!ruleMatches({ kind: 'command', pattern: 'git status' }, 'run-command', subject({ program: 'git', args: ['status'], env })));
    assert.ok(!ruleMatches({ kind: 'command', pattern: 'git *' }, 'run-command', subject({ program: 'git', args: ['status'], env })));
    assert.deepEqual(commandSubject({ program: 'npm', args: ['test'], env: [{ name: 'Path', value: '/tmp/x' }] }).ok, false);
  });
});
