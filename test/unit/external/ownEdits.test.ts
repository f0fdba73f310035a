import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Agent } from '../../../src/core/agents';
import { startExternalRoot } from '../../../src/core/external';
import { MAX_FILE_BYTES } from '../../../src/core/external/workspaceWatch';
import { testAgentConfig } from '../../support/acpTestAgent';
import { makeRuntime, until } from '../../support/runtimeFixture';

const WAIT = 20_000;
const ends = (agent: Agent) => agent.log.events.filter((e) => e.type === 'turn_end');
const texts = (agent: Agent) => agent.log.events.flatMap((e) => (e.type === 'assistant_text' ? [e.text] : []));

/** Edits an external agent makes in its own process (its own tools, its own shell) reach Review / Keep / Undo. */
describe('external agents\' own edits', function () {
  this.timeout(60_000);
  let workspace: string;
  let runtime: ReturnType<typeof makeRuntime>['runtime'];
  const file = (name: string) => path.join(workspace, name);
  beforeEach(() => {
    workspace = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-own-')));
    fs.writeFileSync(file('notes.txt'), 'first line\n');
    fs.writeFileSync(file('gone.txt'), 'bye\n');
    ({ runtime } = makeRuntime({ version: 1, agents: {} }, { workspace }));
  });
  afterEach(async () => {
    await runtime.dispose();
    fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('files the agent creates, changes and deletes itself are recorded with their content before its turn, and Undo puts each back', async () => {
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: "shell: printf 'hi\\n' > hello.txt && printf 'changed\\n' > notes.txt && rm gone.txt" });
    await until(() => ends(agent).length === 1, 'the turn end', WAIT);
    assert.strictEqual(fs.readFileSync(file('hello.txt'), 'utf8'), 'hi\n', 'the agent did write it');
    const changed = (await runtime.changes.list(agent.id)).map((c) => [c.path, c.original, c.written]).sort();
    assert.deepStrictEqual(changed, [
      ['gone.txt', 'bye\n', null],
      ['hello.txt', null, 'hi\n'],
      ['notes.txt', 'first line\n', 'changed\n'],
    ]);
    for (const name of ['gone.txt', 'hello.txt', 'notes.txt']) await runtime.changes.restore(agent.id, name);
    assert.strictEqual(fs.readFileSync(file('notes.txt'), 'utf8'), 'first line\n');
    assert.strictEqual(fs.readFileSync(file('gone.txt'), 'utf8'), 'bye\n');
    assert.ok(!fs.existsSync(file('hello.txt')));
  });

  it('a change to a file too large to keep is named in the transcript as one Review cannot undo', async () => {
    fs.writeFileSync(file('big.log'), 'x'.repeat(MAX_FILE_BYTES + 1));
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'shell: echo more >> big.log' });
    await until(() => ends(agent).length === 1, 'the turn end', WAIT);
    assert.deepStrictEqual(await runtime.changes.list(agent.id), []);
    assert.ok(texts(agent).some((t) => /1 file\(s\) changed in this turn that Arbor did not keep a copy of .*: big\.log\./.test(t)), texts(agent).join('\n'));
  });
});
