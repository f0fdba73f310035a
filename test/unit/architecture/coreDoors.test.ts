import * as assert from 'assert';
import * as path from 'path';
import { Linter, type Rule } from 'eslint';
import tseslint from 'typescript-eslint';

const root = path.resolve(__dirname, '..', '..', '..');

/** The messages `arbor/core-doors` gives for `code` written in the file at `file` (relative to the project). */
function lint(rule: Rule.RuleModule, file: string, code: string): string[] {
  const linter = new Linter({ cwd: root });
  const config: Linter.Config[] = [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { arbor: { rules: { 'core-doors': rule } } },
      rules: { 'arbor/core-doors': 'error' },
    },
  ];
  return linter.verify(code, config, path.join(root, file)).map((m) => m.message);
}

describe('lint rule arbor/core-doors', () => {
  let rule: Rule.RuleModule;
  before(async () => {
    const module = (await import(path.join(root, 'scripts', 'lint', 'coreDoors.mjs'))) as { coreDoors: Rule.RuleModule };
    rule = module.coreDoors;
  });

  it('lets the editor layer import the core and the index.ts of a folder directly under it', () => {
    const code = [
      "import { Runtime } from '../core';",
      "import type { Agent } from '../core/agents';",
      "import { ScriptedModel } from '../core/models';",
      "export { Emitter } from '../core';",
      "import * as vscode from 'vscode';",
      "import { reportError } from './errorReporting';",
    ].join('\n');
    assert.deepStrictEqual(lint(rule, 'src/extension/extension.ts', code), []);
    assert.deepStrictEqual(lint(rule, 'src/extension/agents/agentCommands.ts', "import type { Runtime } from '../../core';\nimport { Agent } from '../../core/agents';"), []);
  });

  it('refuses a module behind a door, naming the door to use instead', () => {
    const messages = lint(
      rule,
      'src/extension/agents/agentsTree.ts',
      [
        "import { Runtime } from '../../core/runtime';",
        "import { Agent } from '../../core/agents/agent';",
        "export { ArborError } from '../../core/errors';",
        "export type R = import('../../core/agents/registry').AgentRegistry;",
        "import fs = require('../../core/limits');",
      ].join('\n'),
    );
    assert.strictEqual(messages.length, 5, messages.join('\n'));
    assert.match(messages[0], /'\.\.\/\.\.\/core\/runtime' reaches behind the core's doors: import from '\.\.\/\.\.\/core'/);
    assert.match(messages[1], /'\.\.\/\.\.\/core\/agents\/agent' reaches behind the core's doors: import from '\.\.\/\.\.\/core\/agents'/);
  });

  it("leaves the core's own modules free to import each other", () => {
    assert.deepStrictEqual(lint(rule, 'src/core/runtime.ts', "import { Agent } from './agents/agent';"), []);
    assert.deepStrictEqual(lint(rule, 'src/core/agents/agent.ts', "import { RunBudget } from '../limits';"), []);
  });
});
