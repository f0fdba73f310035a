import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { InteractionPrompt } from '../../../src/core/interaction';
import type { ModelScript } from '../../../src/core/models';
import { Runtime } from '../../../src/core/runtime';
import { MAX_READ_LINES } from '../../../src/core/tools';
import { numberedLines, replaceExact } from '../../../src/core/tools/workspaceToolRuns';
import { makeRuntime, recordingModel, approver, toolResults } from '../../support/runtimeFixture';
import { isArborError } from '../../../src/core/errors';
import type { Agent } from '../../../src/core/agents';
import { disposeAfterEach } from '../../support/disposeAfterEach';

type Call = { name: string; arguments: Record<string, unknown> };

/** One root turn that makes these tool calls one after the other, then ends. */
function script(...calls: Call[]): ModelScript {
  return { version: 1, agents: { main: { turns: [[...calls.map((c) => ({ toolCalls: [c] })), { text: 'done' }]] } } };
}


const SHOPPING = "const items = ['apples', 'oats', 'coffee'];\n\nexport function total(prices) {\n  return items.length;\n}\n";

describe('workspace tools', () => {
  const track = disposeAfterEach();
  let workspace: string;
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-tools-'));
    fs.mkdirSync(path.join(workspace, 'src'));
    fs.writeFileSync(path.join(workspace, 'src/shoppingList.js'), SHOPPING);
  });
  afterEach(() => fs.rmSync(workspace, { recursive: true, force: true }));

  async function play(s: ModelScript, options: { choice?: string; onAsk?: (p: InteractionPrompt) => void; nonInteractive?: boolean; folder?: string | null } = {}) {
    const { runtime } = makeRuntime(s, { workspace: options.folder === null ? undefined : (options.folder ?? workspace) });
    const { prompts, provider } = approver(options.choice ?? 'Allow once', options.onAsk);
    runtime.interaction.registerProvider(provider);
    const root = runtime.startRoot({ prompt: 'go', label: 'main', context: options.nonInteractive ? { nonInteractive: true } : undefined });
    await root.whenIdle();
    const results = toolResults(root);
    await runtime.dispose();
    return { runtime, root, prompts, results };
  }

  it('read_file returns numbered lines without asking anyone', async () => {
    const { results, prompts } = await play(script({ name: 'read_file', arguments: { path: 'src/shoppingList.js', start_line: 3, end_line: 4 } }));
    assert.strictEqual(prompts.length, 0);
    assert.strictEqual(results[0].content, 'src/shoppingList.js (lines 3–4 of 5)\n3\texport function total(prices) {\n4\t  return items.length;');
  });

  it('read_file caps a long file and says which lines to ask for next', () => {
    const text = Array.from({ length: MAX_READ_LINES + 500 }, (_, i) => `line ${i + 1}`).join('\n');
    const out = numberedLines('big.txt', text, 'disk');
    const lines = out.split('\n');
    assert.strictEqual(lines[0], `big.txt (lines 1–${MAX_READ_LINES} of ${MAX_READ_LINES + 500})`);
    assert.strictEqual(lines.length, MAX_READ_LINES + 2);
    assert.match(lines[lines.length - 1], new RegExp(`truncated.*ask for lines ${MAX_READ_LINES + 1}–${MAX_READ_LINES + 500}`));
    const wide = numberedLines('wide.txt', Array.from({ length: 300 }, () => 'x'.repeat(1_000)).join('\n'), 'disk');
    assert.ok(wide.length < 110_000, 'the character cap holds');
    assert.match(wide, /ask for lines \d+–300/);
  });

  it('read_file refuses binary files, paths outside the workspace, and says when no folder is open', async () => {
    fs.writeFileSync(path.join(workspace, 'logo.png'), Buffer.from([0x89, 0x50, 0, 0, 1]));
    const { results } = await play(
      script(
        { name: 'read_file', arguments: { path: 'logo.png' } },
        { name: 'read_file', arguments: { path: '../../etc/passwd' } },
        { name: 'read_file', arguments: { path: '/etc/passwd' } },
      ),
    );
    assert.deepStrictEqual(results.map((r) => JSON.parse(r.content).code), ['FILE_BINARY', 'PATH_OUTSIDE_WORKSPACE', 'PATH_OUTSIDE_WORKSPACE']);
    const none = await play(script({ name: 'list_files', arguments: {} }), { folder: null });
    assert.strictEqual(JSON.parse(none.results[0].content).code, 'WORKSPACE_NONE');
  });

  it('list_files and search_text return paths and path:line:match results', async () => {
    fs.writeFileSync(path.join(workspace, 'notes.md'), 'buy apples\n');
    const { results } = await play(
      script({ name: 'list_files', arguments: { glob: '**/*.js' } }, { name: 'search_text', arguments: { query: 'apples' } }, { name: 'search_text', arguments: { query: 'app(les', is_regex: true } }),
    );
    assert.strictEqual(results[0].content, '1 file matching "**/*.js":\nsrc/shoppingList.js');
    assert.strictEqual(results[1].content, "notes.md:1:buy apples\nsrc/shoppingList.js:1:const items = ['apples', 'oats', 'coffee'];");
    assert.strictEqual(JSON.parse(results[2].content).code, 'SEARCH_INVALID');
  });

  it('edit_file asks an interactive root with the whole unified diff, writes once allowed, and records the original', async () => {
    const { results, prompts, runtime, root } = await play(
      script({ name: 'edit_file', arguments: { path: 'src/shoppingList.js', old_text: "'coffee'", new_text: "'coffee', 'tea'" } }),
    );
    assert.strictEqual(prompts.length, 1);
    assert.strictEqual(prompts[0].intent, 'approval');
    assert.match(prompts[0].questions[0].question, /wants to edit files/);
    assert.match(prompts[0].detail ?? '', /^-const items = \['apples', 'oats', 'coffee'\];$/m);
    assert.match(prompts[0].detail ?? '', /^\+const items = \['apples', 'oats', 'coffee', 'tea'\];$/m);
    assert.match(prompts[0].detail ?? '', /\+\+\+ b\/src\/shoppingList\.js/);
    assert.deepStrictEqual(JSON.parse(results[0].content), { status: 'edited', path: 'src/shoppingList.js', lines: 5 });
    assert.strictEqual(fs.readFileSync(path.join(workspace, 'src/shoppingList.js'), 'utf8'), SHOPPING.replace("'coffee'", "'coffee', 'tea'"));
    assert.deepStrictEqual(
      (await runtime.changes.list(root.id)).map((f) => [f.path, f.original]),
      [['src/shoppingList.js', SHOPPING]],
    );
    await runtime.changes.restore(root.id, 'src/shoppingList.js');
    assert.strictEqual(fs.readFileSync(path.join(workspace, 'src/shoppingList.js'), 'utf8'), SHOPPING);
  });

  it('edit_file names not found and ambiguous text, and changes nothing', async () => {
    const { results, prompts } = await play(
      script(
        { name: 'edit_file', arguments: { path: 'src/shoppingList.js', old_text: 'bananas', new_text: 'x' } },
        { name: 'edit_file', arguments: { path: 'src/shoppingList.js', old_text: 'items', new_text: 'list' } },
      ),
    );
    assert.strictEqual(prompts.length, 0, 'nothing to approve');
    assert.deepStrictEqual(results.map((r) => JSON.parse(r.content).code), ['EDIT_NOT_FOUND', 'EDIT_AMBIGUOUS']);
    assert.match(JSON.parse(results[1].content).message, /occurs 2 times .*lines 1, 4/);
    assert.strictEqual(fs.readFileSync(path.join(workspace, 'src/shoppingList.js'), 'utf8'), SHOPPING);
  });

  it('replace_all changes every occurrence; CRLF files take LF old_text', () => {
    assert.strictEqual(replaceExact('f', 'a b a', 'a', 'c', true), 'c b c');
    assert.strictEqual(replaceExact('f', 'one\r\ntwo\r\n', 'one\ntwo', 'uno\ndos', false), 'uno\r\ndos\r\n');
    assert.throws(() => replaceExact('f', 'a b a', 'a', 'c', false), (e: unknown) => isArborError(e, 'EDIT_AMBIGUOUS'));
  });

  it('an edit whose file changed while the human was deciding is EDIT_STALE and writes nothing', async () => {
    const file = path.join(workspace, 'src/shoppingList.js');
    const { results, runtime, root } = await play(script({ name: 'edit_file', arguments: { path: 'src/shoppingList.js', old_text: "'oats'", new_text: "'rice'" } }), {
      onAsk: () => fs.writeFileSync(file, SHOPPING + '// edited by the user\n'),
    });
    assert.strictEqual(JSON.parse(results[0].content).code, 'EDIT_STALE');
    assert.strictEqual(fs.readFileSync(file, 'utf8'), SHOPPING + '// edited by the user\n');
    assert.deepStrictEqual(await runtime.changes.list(root.id), [], 'no change was recorded');
  });

  it('an unattended run is denied an edit without any prompt', async () => {
    const { results, prompts } = await play(script({ name: 'edit_file', arguments: { path: 'src/shoppingList.js', old_text: "'oats'", new_text: "'rice'" } }), { nonInteractive: true });
    assert.strictEqual(prompts.length, 0);
    const result = JSON.parse(results[0].content);
    assert.strictEqual(result.status, 'denied');
    assert.match(result.reason, /unattended/);
    assert.strictEqual(fs.readFileSync(path.join(workspace, 'src/shoppingList.js'), 'utf8'), SHOPPING);
  });

  it('a subagent is denied an edit without any prompt, and the denial reaches its parent', async () => {
    const { model } = recordingModel({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'helper', prompt: 'edit it' } }] }, { text: 'done' }]] },
        helper: { turns: [[{ toolCalls: [{ name: 'create_file', arguments: { path: 'new.txt', content: 'x' } }] }, { text: 'could not' }]] },
      },
    });
    const runtime = new Runtime({ model, workspace });
    track(runtime);
    const { prompts, provider } = approver('Allow once');
    runtime.interaction.registerProvider(provider);
    const started: Agent[] = [];
    runtime.onEvent((e) => {
      if (e.type === 'agent_added') started.push(e.agent);
    });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.strictEqual(prompts.length, 0);
    assert.strictEqual(fs.existsSync(path.join(workspace, 'new.txt')), false);
    const helper = started.find((a) => a.label === 'helper');
    assert.ok(helper);
    const denied = JSON.parse(toolResults(helper)[0].content);
    assert.strictEqual(denied.status, 'denied');
    assert.match(denied.reason, /delegated agent/);
  });

  it('create_file creates a new file after approval and refuses an existing one', async () => {
    const { results, prompts, runtime, root } = await play(
      script({ name: 'create_file', arguments: { path: 'docs/notes.md', content: '# Notes\n' } }, { name: 'create_file', arguments: { path: 'src/shoppingList.js', content: 'x' } }),
    );
    assert.strictEqual(prompts.length, 1);
    assert.match(prompts[0].detail ?? '', /--- \/dev\/null/);
    assert.strictEqual(JSON.parse(results[0].content).status, 'created');
    assert.strictEqual(fs.readFileSync(path.join(workspace, 'docs/notes.md'), 'utf8'), '# Notes\n');
    assert.strictEqual(JSON.parse(results[1].content).code, 'FILE_EXISTS');
    assert.deepStrictEqual((await runtime.changes.list(root.id)).map((f) => [f.path, f.original]), [['docs/notes.md', null]]);
  });

  it('plan mode offers the read-only tools and hides edit_file and create_file', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'plan' }]] } } }, { workspace });
    track(runtime);
    const planning = runtime.startRoot({ prompt: 'go', label: 'main', planMode: true });
    const names = runtime.toolSpecs(planning).map((s) => s.name);
    for (const tool of ['read_file', 'list_files', 'search_text', 'get_diagnostics']) assert.ok(names.includes(tool), tool);
    for (const tool of ['edit_file', 'create_file']) assert.ok(!names.includes(tool), tool);
    const working = runtime.startRoot({ prompt: 'go', label: 'main' });
    const all = runtime.toolSpecs(working).map((s) => s.name);
    for (const tool of ['read_file', 'edit_file', 'create_file']) assert.ok(all.includes(tool), tool);
  });
});
