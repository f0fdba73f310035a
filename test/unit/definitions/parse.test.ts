import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_PROMPT_CHARS, parseDefinitionFile, resolveDefinitions, type DefinitionFileResult, type DefinitionFormat, type DefinitionScope } from '../../../src/core/definitions';
import { toolGlobMatcher } from '../../../src/core/definitions/toolGlob';
import { builtinTools } from '../../../src/core/tools';

const CORPUS = path.join(__dirname, '..', '..', 'fixtures', 'agent-definitions');
const KNOWN = new Set(builtinTools.map((t) => t.name));

function read(rel: string, format: DefinitionFormat = 'arbor', scope: DefinitionScope = 'workspace'): DefinitionFileResult {
  const file = path.join(CORPUS, rel);
  return parseDefinitionFile({ file, text: fs.readFileSync(file, 'utf8'), format, scope }, KNOWN);
}

function ok(result: DefinitionFileResult) {
  if (!result.ok) assert.fail(`refused: ${result.message}`);
  return result;
}

function refused(result: DefinitionFileResult): { message: string; line?: number } {
  if (result.ok) assert.fail(`accepted ${result.definition.name}, expected a refusal`);
  return result;
}

describe('agent definitions: reading the files', () => {
  it('reads an Arbor definition whole: name, description, tools, limits, kind, and the body as its prompt', () => {
    const { definition, notes } = ok(read('arbor/reviewer.md'));
    assert.equal(definition.name, 'Reviewer');
    assert.match(definition.description, /^Reviews a change/);
    assert.deepEqual(definition.tools, ['read_file', 'list_files', 'search_text', 'get_diagnostics', 'update_plan']);
    assert.deepEqual(definition.limits, { maxTurns: 5, maxStepsPerTurn: 20 });
    assert.equal(definition.kind, 'one-shot');
    assert.match(definition.prompt, /^You review code; you never change it\.\n\n1\. Read/);
    assert.equal(definition.format, 'arbor');
    assert.deepEqual(notes, []);
  });

  it('accepts globs and folded YAML, and takes `model: inherit` as the run\'s model', () => {
    const { definition } = ok(read('arbor/test-writer.md'));
    assert.equal(definition.description, 'Writes unit tests for a module it is given, runs them, and reports what they cover.');
    assert.deepEqual(definition.tools, ['read_file', '*_file', 'run_command']);
    assert.equal(definition.model, undefined);
    assert.equal(definition.kind, 'continuable');
  });

  it('maps a Claude Code agent: its tools become Arbor\'s, its alias model means the run\'s, its colour is named as ignored', () => {
    const { definition, notes } = ok(read('claude/code-reviewer.md', 'claude'));
    assert.equal(definition.name, 'code-reviewer');
    assert.deepEqual(definition.tools, ['read_file', 'search_text', 'list_files', 'run_command']);
    assert.equal(definition.model, undefined);
    assert.ok(notes.some((n) => /ignored field "color"/.test(n)), notes.join('; '));
    assert.ok(notes.some((n) => /model "sonnet" is a Claude alias/.test(n)), notes.join('; '));
    assert.match(definition.prompt, /^You are a senior code reviewer/);
  });

  it('a Claude agent without tools gets every tool, and an escaped multi-line description is kept', () => {
    const { definition } = ok(read('claude/debugger.md', 'claude'));
    assert.equal(definition.tools, undefined);
    assert.match(definition.description, /Use proactively when encountering any issues\.\n\nExamples:/);
  });

  it('a Claude agent\'s permission mode and hooks are never carried over, and tools Arbor lacks are named', () => {
    const { definition, notes } = ok(read('claude/security-auditor.md', 'claude'));
    assert.deepEqual(definition.tools, ['read_file', 'search_text', 'update_plan']);
    const all = notes.join('; ');
    assert.match(all, /"permissionMode"/);
    assert.match(all, /"hooks"/);
    assert.match(all, /"WebFetch", "mcp__github__search_code" left out/);
  });

  it('maps a Copilot agent: name from the file, tools mapped, handoffs named as ignored, model kept', () => {
    const { definition, notes } = ok(read('copilot/planner.agent.md', 'copilot'));
    assert.equal(definition.name, 'planner');
    assert.deepEqual(definition.tools, ['search_text', 'list_files', 'read_file']);
    assert.equal(definition.model, 'Claude Sonnet 4');
    assert.match(notes.join('; '), /ignored field "handoffs"/);
    assert.match(notes.join('; '), /"fetch", "findTestFiles", "githubRepo", "usages" left out/);
  });

  it('maps Copilot\'s namespaced tool names', () => {
    const { definition, notes } = ok(read('copilot/docs-writer.agent.md', 'copilot'));
    assert.equal(definition.name, 'Docs Writer');
    assert.deepEqual(definition.tools, ['search_text', 'list_files', 'read_file', 'edit_file', 'create_file', 'get_diagnostics', 'update_plan']);
    assert.match(notes.join('; '), /ignored fields "target", "argument-hint"/);
    assert.match(notes.join('; '), /"vscode\/openSimpleBrowser" left out/);
  });

  describe('hostile and broken files are refused whole, saying why', () => {
    const cases: Array<[string, RegExp, number?]> = [
      ['no-frontmatter.md', /does not start with YAML frontmatter/, 1],
      ['unclosed.md', /not closed/, 1],
      ['bad-yaml.md', /not valid YAML/],
      ['billion-laughs.md', /anchors and aliases/, 4],
      ['unknown-tool.md', /no tool named "delete_everything"/, 4],
      ['raises-mode.md', /"interactionMode" cannot be set in a definition/, 4],
      ['approvals.md', /"approvals" cannot be set/, 4],
      ['run-wide-limit.md', /limits\.maxTokens counts for the whole run/, 4],
      ['unknown-field.md', /unknown field "tool"/, 2],
      ['path-name.md', /^name: a name is 1-64 letters/, 2],
      ['js-tag.md', /not valid YAML \(unknown tag/],
      ['huge-limit.md', /^limits\.maxTurns:/, 4],
      ['empty-body.md', /body is empty/],
      ['list-frontmatter.md', /must be a mapping/],
      ['tools-object.md', /^tools:/, 4],
    ];
    for (const [file, message, line] of cases) {
      it(file, () => {
        const r = refused(read(`hostile/${file}`));
        assert.match(r.message, message);
        if (line !== undefined) assert.equal(r.line, line);
      });
    }

    it('an oversized prompt', () => {
      const text = `---\nname: big\ndescription: big\n---\n${'x'.repeat(MAX_PROMPT_CHARS + 1)}\n`;
      const r = refused(parseDefinitionFile({ file: '/w/.arbor/agents/big.md', text, format: 'arbor', scope: 'workspace' }, KNOWN));
      assert.match(r.message, new RegExp(`at most ${MAX_PROMPT_CHARS}`));
    });

    it('a file too large to read at all, before YAML sees it', () => {
      const text = `---\nname: huge\ndescription: ${'y'.repeat(300 * 1024)}\n---\nBody\n`;
      assert.match(refused(parseDefinitionFile({ file: '/w/huge.md', text, format: 'arbor', scope: 'workspace' }, KNOWN)).message, /larger than 256 KiB/);
    });

    it('in another format a permission mode is ignored, never refused or used', () => {
      const text = '---\nname: x\ndescription: y\npermissionMode: bypassPermissions\n---\nBody\n';
      const r = ok(parseDefinitionFile({ file: '/w/.claude/agents/x.md', text, format: 'claude', scope: 'workspace' }, KNOWN));
      assert.match(r.notes.join(), /"permissionMode"/);
      assert.deepEqual(Object.keys(r.definition).sort(), ['description', 'file', 'format', 'name', 'prompt', 'scope']);
    });
  });
});

describe('agent definitions: which file wins', () => {
  const def = (file: string, name: string, scope: DefinitionScope, format: DefinitionFormat = 'arbor'): DefinitionFileResult =>
    parseDefinitionFile({ file, text: `---\nname: ${name}\ndescription: d\n---\nfrom ${file}\n`, format, scope }, KNOWN);

  it('a workspace definition wins over a user one of the same name, and the note says which won', () => {
    const r = resolveDefinitions([def('/home/u/.arbor/agents/rev.md', 'Reviewer', 'user'), def('/w/.arbor/agents/rev.md', 'reviewer', 'workspace')]);
    assert.deepEqual(r.definitions.map((d) => d.file), ['/w/.arbor/agents/rev.md']);
    assert.deepEqual(r.refused, []);
    assert.deepEqual(r.notes, [{ file: '/home/u/.arbor/agents/rev.md', message: '"Reviewer" is not used: /w/.arbor/agents/rev.md (workspace) has the same name and wins' }]);
  });

  it('Arbor\'s own format wins over Claude\'s and Copilot\'s in the same workspace', () => {
    const r = resolveDefinitions([def('/w/.github/agents/a.agent.md', 'a', 'workspace', 'copilot'), def('/w/.claude/agents/a.md', 'a', 'workspace', 'claude'), def('/w/.arbor/agents/a.md', 'a', 'workspace')]);
    assert.deepEqual(r.definitions.map((d) => d.format), ['arbor']);
    assert.equal(r.notes.length, 2);
  });

  it('two files of the same standing with one name: the second in path order is refused whole, whatever order they came in', () => {
    for (const order of [0, 1]) {
      const files = [def('/w/.arbor/agents/a.md', 'Same', 'workspace'), def('/w/.arbor/agents/b.md', 'same', 'workspace')];
      const r = resolveDefinitions(order ? files.reverse() : files);
      assert.deepEqual(r.definitions.map((d) => d.file), ['/w/.arbor/agents/a.md']);
      assert.deepEqual(r.refused, [{ file: '/w/.arbor/agents/b.md', message: 'duplicate name "same": /w/.arbor/agents/a.md already defines it', line: 2 }]);
    }
  });

  it('a refused file is listed and never used, and the other files are', () => {
    const r = resolveDefinitions([read('hostile/unknown-tool.md'), read('arbor/reviewer.md')]);
    assert.deepEqual(r.definitions.map((d) => d.name), ['Reviewer']);
    assert.equal(r.refused.length, 1);
    assert.match(r.refused[0].file, /unknown-tool\.md$/);
  });
});

describe('agent definitions: tool globs', () => {
  it('match tool names by *, ?, sets and alternatives, and a pattern that cannot be read is refused whole', () => {
    const names = ['read_file', 'edit_file', 'list_files', 'run_command', 'mcp/github.search', 'update_plan'];
    const pick = (glob: string) => names.filter(toolGlobMatcher(glob));
    assert.deepEqual(pick('*_file'), ['read_file', 'edit_file']);
    assert.deepEqual(pick('?ead_file'), ['read_file']);
    assert.deepEqual(pick('{read,edit}_*'), ['read_file', 'edit_file']);
    assert.deepEqual(pick('[re]*_file'), ['read_file', 'edit_file']);
    assert.deepEqual(pick('[!r]*'), ['edit_file', 'list_files', 'mcp/github.search', 'update_plan']);
    assert.deepEqual(pick('mcp/*'), ['mcp/github.search']);
    assert.deepEqual(pick('read.file'), [], 'a dot is a dot');
    for (const bad of ['{read', 'read}', '[abc', '{a,{b}}']) {
      const text = `---\nname: g\ndescription: d\ntools: ["${bad}"]\n---\nBody\n`;
      const r = parseDefinitionFile({ file: '/w/g.md', text, format: 'arbor', scope: 'workspace' }, KNOWN);
      assert.ok(!r.ok && /is not a valid glob/.test(r.message), bad);
    }
  });
});
