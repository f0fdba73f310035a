import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { InteractionPrompt } from '../../../src/core/interaction';
import { NodeWorkspace } from '../../../src/core/workspace';
import { makeRuntime, toolResults } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';

const allow = { ask: (p: InteractionPrompt) => Promise.resolve([{ id: p.questions[0].id, selected: ['Allow once'] }]) };

describe("a run in its own folder: its agents read, edit and run commands there, never in the runtime's workspace", () => {
  const track = disposeAfterEach();
  let user: string;
  let own: string;
  beforeEach(() => {
    user = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-runws-user-'));
    own = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-runws-own-'));
    for (const dir of [user, own]) fs.writeFileSync(path.join(dir, 'list.txt'), 'apples\n');
  });
  afterEach(() => {
    fs.rmSync(user, { recursive: true, force: true });
    fs.rmSync(own, { recursive: true, force: true });
  });

  it('edits, reads and commands of the root and of its subagents land in the run folder, and no change set is recorded', async () => {
    const { runtime, calls } = makeRuntime(
      {
        version: 1,
        agents: {
          main: {
            turns: [
              [
                { toolCalls: [{ name: 'edit_file', arguments: { path: 'list.txt', old_text: 'apples', new_text: 'apples\ntea' } }] },
                { toolCalls: [{ name: 'run_command', arguments: { command: 'echo ran > cmd.txt' } }] },
                { toolCalls: [{ name: 'delegate_task', arguments: { label: 'helper', prompt: 'read the list' } }] },
                { text: 'done' },
              ],
            ],
          },
          helper: { turns: [[{ toolCalls: [{ name: 'read_file', arguments: { path: 'list.txt' } }] }, { text: 'read' }]] },
        },
      },
      { workspace: user },
    );
    track(runtime);
    runtime.interaction.registerProvider(allow);
    const root = runtime.startRoot({ prompt: 'go', label: 'main', workspace: { folder: own, files: new NodeWorkspace({ folders: [own] }) } });
    await root.whenIdle();
    assert.strictEqual(JSON.parse(toolResults(root)[0].content).status, 'edited');
    assert.strictEqual(fs.readFileSync(path.join(own, 'list.txt'), 'utf8'), 'apples\ntea\n');
    assert.strictEqual(fs.readFileSync(path.join(own, 'cmd.txt'), 'utf8').trim(), 'ran');
    const helperRead = calls.flatMap((c) => c.messages).find((m) => m.role === 'tool' && m.name === 'read_file');
    assert.match(helperRead?.content ?? '', /tea/, "a subagent reads its root run's folder");
    assert.strictEqual(fs.readFileSync(path.join(user, 'list.txt'), 'utf8'), 'apples\n', "the runtime's workspace is untouched");
    assert.deepStrictEqual(fs.readdirSync(user), ['list.txt']);
    assert.deepStrictEqual(await runtime.changes.sessions(), []);
  });
});
