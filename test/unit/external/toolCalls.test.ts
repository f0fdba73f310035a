import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Agent } from '../../../src/core/agents';
import { startExternalRoot } from '../../../src/core/external';
import type { SessionEvent } from '../../../src/core/sessions/types';
import { testAgentConfig } from '../../support/acpTestAgent';
import { approver, makeRuntime, until } from '../../support/runtimeFixture';

const WAIT = 20_000;
const ends = (agent: Agent) => agent.log.events.filter((e) => e.type === 'turn_end');
/** The tool calls and results of the session, as a person reads them in the transcript. */
const tools = (agent: Agent) =>
  agent.log.events.flatMap((e: SessionEvent) =>
    e.type === 'tool_call' ? [`call ${e.call.name} ${e.call.arguments}`] : e.type === 'tool_result' ? [`result ${e.name}: ${e.content}${e.isError ? ' (error)' : ''}`] : [],
  );

/** Tool calls as real agents announce them: in a permission request, in an update, with their input sent later. */
describe('external agents\' tool calls, however they are announced', function () {
  this.timeout(60_000);
  let workspace: string;
  let runtime: ReturnType<typeof makeRuntime>['runtime'];
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-tools-'));
    ({ runtime } = makeRuntime({ version: 1, agents: {} }, { workspace }));
  });
  afterEach(async () => {
    await runtime.dispose();
    fs.rmSync(workspace, { recursive: true, force: true });
  });

  async function run(prompt: string): Promise<Agent> {
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt });
    await until(() => ends(agent).length === 1, 'the turn end', WAIT);
    return agent;
  }

  it('a tool call announced only in its permission request is in the session with its result', async () => {
    const { prompts, provider } = approver('Allow once');
    runtime.interaction.registerProvider(provider);
    const agent = await run('permission-first: make test');
    assert.strictEqual(prompts.length, 1);
    assert.deepStrictEqual(tools(agent), ['call Run make test {"command":"make test"}', 'result Run make test: ran make test']);
  });

  it('an update for a tool call never announced opens the call', async () => {
    const agent = await run('update-first: TODO markers');
    assert.deepStrictEqual(tools(agent), ['call TODO markers {"query":"TODO markers"}', 'result TODO markers: found TODO markers']);
  });

  it('a call\'s title and input sent in an update before it starts are what is logged, not the empty first ones', async () => {
    const agent = await run('args-later: hello.txt = hi there');
    assert.deepStrictEqual(tools(agent), ['call write hello.txt {"filePath":"hello.txt","content":"hi there"}', 'result write hello.txt: written']);
  });
});
