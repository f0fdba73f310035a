import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isArborError } from '../../../src/core/errors';
import type { InteractionPrompt } from '../../../src/core/interaction';
import type { ModelScript } from '../../../src/core/models';
import { Runtime } from '../../../src/core/runtime';
import { JsonlSessionStore } from '../../../src/core/sessions';
import { ChangeSets, FileChangeSetStorage, MemoryChangeSetStorage, NodeWorkspace } from '../../../src/core/workspace';
import { recordingModel, toolResults } from '../../support/runtimeFixture';

const SHOPPING = "const items = ['apples', 'oats', 'coffee'];\n";
const EDITED = "const items = ['apples', 'oats', 'coffee', 'tea'];\n";

async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => isArborError(err) && err.code === code);
}

describe('change sets: Undo restores what the agent changed, never what someone changed since', () => {
  let root: string;
  let sessions: string;
  let ws: NodeWorkspace;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-changes-ws-'));
    sessions = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-changes-sessions-'));
    fs.mkdirSync(path.join(root, 'src'));
    fs.writeFileSync(path.join(root, 'src/shoppingList.js'), SHOPPING);
    ws = new NodeWorkspace({ folders: [root] });
  });
  afterEach(() => {
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(sessions, { recursive: true, force: true });
  });

  /** What the edit tools do: record the original, write, record what was written. */
  async function agentWrites(changes: ChangeSets, session: string, relative: string, text: string): Promise<void> {
    const file = await ws.resolve(relative);
    const before = (await ws.exists(file)) ? (await ws.readText(file)).text : null;
    await changes.recordBefore(session, file, before);
    await ws.writeText(file, text);
    await changes.recordWritten(session, relative, text);
  }

  it('refuses to undo a file someone changed after the agent, changes nothing, and keeps the record', async () => {
    const changes = new ChangeSets(new FileChangeSetStorage(sessions), () => ws);
    await agentWrites(changes, 's1', 'src/shoppingList.js', EDITED);
    const file = path.join(root, 'src/shoppingList.js');
    fs.writeFileSync(file, `${EDITED}// the user's note\n`);

    await rejectsWith(changes.restore('s1', 'src/shoppingList.js'), 'CHANGED_SINCE');
    assert.strictEqual(fs.readFileSync(file, 'utf8'), `${EDITED}// the user's note\n`, 'the later change is untouched');
    assert.deepStrictEqual(
      (await changes.list('s1')).map((f) => [f.path, f.original, f.written]),
      [['src/shoppingList.js', SHOPPING, EDITED]],
      'the record stays, so the user can still Keep or undo after putting it back',
    );

    fs.writeFileSync(file, EDITED);
    await changes.restore('s1', 'src/shoppingList.js');
    assert.strictEqual(fs.readFileSync(file, 'utf8'), SHOPPING, 'once the file holds what the agent wrote, Undo restores it');
  });

  it('refuses to delete a file the agent created when someone changed or removed it since', async () => {
    const changes = new ChangeSets(new MemoryChangeSetStorage(), () => ws);
    await agentWrites(changes, 's1', 'notes.md', 'agent notes\n');
    fs.writeFileSync(path.join(root, 'notes.md'), 'agent notes\nand mine\n');
    await rejectsWith(changes.restore('s1', 'notes.md'), 'CHANGED_SINCE');
    assert.ok(fs.existsSync(path.join(root, 'notes.md')));

    fs.rmSync(path.join(root, 'notes.md'));
    await rejectsWith(changes.restore('s1', 'notes.md'), 'CHANGED_SINCE');

    fs.writeFileSync(path.join(root, 'notes.md'), 'agent notes\n');
    await changes.restore('s1', 'notes.md');
    assert.strictEqual(fs.existsSync(path.join(root, 'notes.md')), false);
  });

  it('a record whose write never finished restores as a no-op instead of refusing', async () => {
    const changes = new ChangeSets(new MemoryChangeSetStorage(), () => ws);
    await changes.recordBefore('s1', await ws.resolve('src/shoppingList.js'), SHOPPING);
    await changes.restore('s1', 'src/shoppingList.js');
    assert.strictEqual(fs.readFileSync(path.join(root, 'src/shoppingList.js'), 'utf8'), SHOPPING);
    assert.deepStrictEqual(await changes.list('s1'), []);
  });

  it('Keep all drops the record and its file; sessions() names only sessions with changes; every change is announced', async () => {
    const storage = new FileChangeSetStorage(sessions);
    const changes = new ChangeSets(storage, () => ws);
    const announced: string[] = [];
    changes.onDidChange((id) => announced.push(id));
    await agentWrites(changes, 's1', 'src/shoppingList.js', EDITED);
    await agentWrites(changes, 's2', 'a.txt', 'a\n');
    await agentWrites(changes, 's2', 'b.txt', 'b\n');
    assert.deepStrictEqual((await changes.sessions()).sort(), ['s1', 's2']);
    assert.ok(announced.includes('s1') && announced.includes('s2'));

    announced.length = 0;
    await changes.keepAll('s2');
    assert.deepStrictEqual(announced, ['s2']);
    assert.strictEqual(fs.existsSync(storage.fileOf('s2')), false, 'no empty record is left behind');
    assert.deepStrictEqual(await changes.sessions(), ['s1']);
    assert.strictEqual(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'a\n', 'Keep leaves the files as they are');

    await changes.keep('s1', 'src/shoppingList.js');
    assert.deepStrictEqual(await changes.sessions(), []);
    assert.strictEqual(fs.readFileSync(path.join(root, 'src/shoppingList.js'), 'utf8'), EDITED);
  });

  it("an agent's edit is on record beside its session after a reload, and the resumed session can still undo it", async () => {
    const script: ModelScript = {
      version: 1,
      agents: {
        Editor: {
          turns: [
            [{ toolCalls: [{ name: 'edit_file', arguments: { path: 'src/shoppingList.js', old_text: "'coffee'", new_text: "'coffee', 'tea'" } }] }, { text: 'added tea' }],
            [{ text: 'still here' }],
          ],
        },
      },
    };
    const allow = { ask: (p: InteractionPrompt) => Promise.resolve([{ id: p.questions[0].id, selected: ['Allow once'] }]) };

    const firstStore = new JsonlSessionStore(sessions, { flushDelayMs: 1 });
    const first = new Runtime({ model: recordingModel(script).model, sessions: firstStore, workspace: root, changeSets: new FileChangeSetStorage(sessions), newId: () => 'editor-1' });
    first.interaction.registerProvider(allow);
    const agent = first.startRoot({ prompt: 'add tea', label: 'Editor' });
    await agent.whenIdle();
    assert.strictEqual(JSON.parse(toolResults(agent)[0].content).status, 'edited');
    await first.dispose();
    firstStore.closeAllSync();
    assert.ok(fs.existsSync(path.join(sessions, 'editor-1.changes.json')), 'the record sits beside the session');

    // A new window: a new runtime on the same sessions folder.
    const secondStore = new JsonlSessionStore(sessions, { flushDelayMs: 1 });
    const second = new Runtime({ model: recordingModel(script).model, sessions: secondStore, workspace: root, changeSets: new FileChangeSetStorage(sessions) });
    try {
      assert.deepStrictEqual(await second.changes.sessions(), ['editor-1'], 'History can tell which past sessions changed files');
      const resumed = await second.resumeRoot('editor-1');
      const listed = await second.changes.list(resumed.id);
      assert.deepStrictEqual(listed.map((f) => [f.path, f.original, f.written]), [['src/shoppingList.js', SHOPPING, EDITED]]);
      await second.changes.restore(resumed.id, 'src/shoppingList.js');
      assert.strictEqual(fs.readFileSync(path.join(root, 'src/shoppingList.js'), 'utf8'), SHOPPING);
    } finally {
      await second.dispose();
      secondStore.closeAllSync();
    }
  });
});
