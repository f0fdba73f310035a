import * as assert from 'node:assert/strict';
import type * as acp from '@agentclientprotocol/sdk';
import { ExternalAgentClient, runtimeServices } from '../../../src/core/external';
import { askTheHuman, resolveInteractionPolicy, UserInteractionService } from '../../../src/core/interaction';
import { Runtime } from '../../../src/core/runtime';
import { FakeDirectory, makeAgent, oneQuestion } from '../../support/interactionFakes';
import { recordingModel } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';

// The core dates what it writes by a clock it is given (the runtime's `now`, or a clock
// parameter), so a session written under a test's clock reads that clock, not the machine's.

const AT = '2025-02-03T04:05:06.000Z';
const clock = (): number => Date.parse(AT);

describe('timestamps read the clock they are given', () => {
  const track = disposeAfterEach();
  it("a new session is dated by the runtime's clock", async () => {
    const runtime = new Runtime({ model: recordingModel({ version: 1, agents: { main: { turns: [[{ text: 'done' }]] } } }).model, now: clock });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    assert.equal(root.log.header.createdAt, AT);
    await root.whenIdle();
  });

  it("a question an unattended run suppresses is recorded at the asking clock's time", async () => {
    const directory = new FakeDirectory();
    const agent = makeAgent('lead');
    directory.add(agent);
    const ctx = { agent, signal: new AbortController().signal, interaction: new UserInteractionService({ agents: directory }), policy: resolveInteractionPolicy({ interactionMode: 'autonomous' }) };
    assert.deepEqual(await askTheHuman(ctx, { questions: oneQuestion(), intent: 'clarify' }, clock), { status: 'unattended' });
    assert.deepEqual(
      agent.log.events.filter((e) => e.type === 'question' || e.type === 'answer').map((e) => `${e.type} ${e.at}`),
      [`question ${AT}`, `answer ${AT}`],
    );
  });

  it("a permission an external agent's client refuses without asking is recorded at the client's clock's time", async () => {
    const runtime = new Runtime({ model: recordingModel({ version: 1, agents: {} }).model });
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'wait', label: 'lead' });
    await agent.whenIdle();
    const client = new ExternalAgentClient(agent, runtimeServices(runtime), () => undefined, clock);
    track(client);
    const onlyAlways: acp.RequestPermissionRequest = {
      sessionId: 'forged',
      options: [{ optionId: 'always', name: 'Always allow', kind: 'allow_always' }],
      toolCall: { toolCallId: 'read-1', title: 'Fetch a page', kind: 'fetch' },
    };
    await client.requestPermission(onlyAlways, new AbortController().signal);
    assert.deepEqual(
      agent.log.events.filter((e) => e.type === 'approval').map((e) => e.at),
      [AT],
    );
  });
});
