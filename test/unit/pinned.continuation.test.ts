import * as assert from 'assert';
import type { Agent } from '../../src/core/agents/agent';
import { isArborError } from '../../src/core/errors';
import { ContinuationManager } from '../../src/core/subagents';
import { childByLabel, makeRuntime, reasons, tick, toolResults, until, userMessages } from './support/runtimeFixture';

// Continuable children as their parent and the user see them: when a child settles, what its
// reports say, and who may reach it.

const start = (label: string, prompt = 'work') => ({ name: 'start_subagent', arguments: { label, prompt } });

/**
 * A root "main" that starts one continuable child per label, each hanging in its first model
 * call; resolves once they all run and the root is idle.
 */
async function rootWithHangingChildren(...labels: string[]) {
  const { runtime } = makeRuntime({
    version: 1,
    agents: {
      main: { turns: [[{ toolCalls: labels.map((l) => start(l)) }, { text: 'started' }], [{ text: 'ok' }]], afterLastTurn: 'repeat-last' },
      ...Object.fromEntries(labels.map((l) => [l, { turns: [[{ hang: true }]] }])),
    },
  });
  const root = runtime.startRoot({ prompt: 'go', label: 'main' });
  await until(() => runtime.agents.size === labels.length + 1 && root.status === 'idle', 'the children to start');
  return { runtime, root };
}
const unauthorized = (e: unknown) => isArborError(e, 'SUBAGENT_UNAUTHORIZED');

describe('continuable children, pinned', () => {
  it('a child with a running subagent is not released when its turn ends; it settles once that subagent is gone, and says so', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('a')] }, { text: 'started' }], [{ text: 'ok' }]], afterLastTurn: 'repeat-last' },
        a: { turns: [[{ toolCalls: [start('b')] }, { text: 'a is done' }]] },
        b: { turns: [[{ hang: true }]] },
      },
    });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => runtime.agents.size === 3, 'the grandchild');
    const a = childByLabel(runtime, 'a');
    const b = childByLabel(runtime, 'b');
    await until(() => userMessages(root).some((m) => m.includes('a is done')) && root.status === 'idle', "a's report");
    const first = userMessages(root).find((m) => m.includes('a is done'))!;
    assert.strictEqual(first, `[Report from subagent "a" (agent_id: ${a.id})] It finished its turn.\na is done`);
    assert.strictEqual(runtime.agents.isLive(a), true, 'a child is not released while its grandchild still runs');
    assert.strictEqual(a.status, 'idle');

    await runtime.end(b);
    await until(() => !runtime.agents.isLive(a), 'a to settle');
    await until(() => root.status === 'idle' && userMessages(root).length === 3, 'the settle report');
    assert.strictEqual(
      userMessages(root)[2],
      `[Subagent "a" (agent_id: ${a.id})] Its own subagents have finished.\n` +
        `It is now idle and has been released; send_message to ${a.id} resumes it with its conversation.`,
    );
    await runtime.dispose();
  });

  it('a child stopped by its parent is reported as interrupted with cause parent, kept live, and does not settle', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: {
          turns: [[{ toolCalls: [start('kid')] }, { toolCalls: [{ name: 'interrupt_agent', arguments: { agent_id: '{{agent:kid}}' } }] }, { text: 'x' }], [{ text: 'ok' }]],
          afterLastTurn: 'repeat-last',
        },
        kid: { turns: [[{ hang: true }]] },
      },
    });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => userMessages(root).some((m) => m.includes('was interrupted')), 'the interrupt report');
    const kid = childByLabel(runtime, 'kid');
    const report = userMessages(root).find((m) => m.includes('was interrupted'))!;
    assert.strictEqual(
      report,
      `[Report from subagent "kid" (agent_id: ${kid.id})] It was interrupted (parent); it keeps its conversation and waits for a message.`,
    );
    assert.strictEqual(runtime.agents.isLive(kid), true, 'a stopped child is not released');
    await runtime.dispose();
  });

  it("a child stopped by the user is reported as stopped, and the report does not wake the parent", async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('kid')] }, { text: 'started' }], [{ text: 'woken' }]], afterLastTurn: 'repeat-last' },
        kid: { turns: [[{ hang: true }]] },
      },
    });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => runtime.agents.size === 2 && root.status === 'idle', 'the kid to run');
    const kid = childByLabel(runtime, 'kid');
    await until(() => kid.status === 'running', 'the kid turn');
    runtime.stop(kid);
    await until(() => root.pendingCount === 1, 'the report to be queued');
    await tick(5);
    assert.strictEqual(root.status, 'idle', 'a stopped child does not restart its parent');
    assert.deepStrictEqual(reasons(root), ['completed']);
    runtime.sendFromUser(root, 'next');
    await until(() => userMessages(root).includes('next') && root.status === 'idle' && root.pendingCount === 0, 'the next turns');
    assert.strictEqual(
      userMessages(root)[1],
      `[Report from subagent "kid" (agent_id: ${kid.id})] It was stopped by the user; it keeps its conversation and waits for a message.`,
    );
    await runtime.dispose();
  });

  it('a child that fails or hits a run limit is reported as such, with the reason', async () => {
    const { runtime } = makeRuntime(
      {
        version: 1,
        agents: {
          main: { turns: [[{ toolCalls: [start('bad'), start('long')] }, { text: 'started' }], [{ text: 'ok' }]], afterLastTurn: 'repeat-last' },
          bad: { turns: [[{ error: { code: 'MODEL_UNAVAILABLE', message: 'the model is down' } }]] },
          long: { turns: [{ steps: [{ toolCalls: [{ name: 'list_agents', arguments: {} }] }], loop: true }] },
        },
      },
      { limits: { maxStepsPerTurn: 2 } },
    );
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => runtime.agents.size === 1 && root.status === 'idle' && userMessages(root).length >= 3, 'both reports');
    const msgs = userMessages(root);
    const failed = msgs.find((m) => m.includes('"bad"'))!;
    assert.match(failed, /^\[Report from subagent "bad" \(agent_id: [^)]+\)\] It failed \(.*the model is down.*\)\.\nIt is now idle and has been released/);
    const limited = msgs.find((m) => m.includes('"long"'))!;
    assert.match(limited, /It hit a run limit \(a turn may make at most 2 model calls\)\./);
    assert.match(limited, /has been released/);
    await runtime.dispose();
  });

  it("a settled child's usage, label and conversation come back when its parent resumes it", async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: {
          turns: [
            [{ toolCalls: [start('kid')] }, { text: 'started' }],
            [{ text: 'ok' }],
            [{ toolCalls: [{ name: 'send_message', arguments: { agent_id: '{{agent:kid}}', message: 'again' } }] }, { text: 'sent' }],
            [{ text: 'ok' }],
          ],
          afterLastTurn: 'repeat-last',
        },
        kid: { turns: [[{ text: 'first', usage: { inputTokens: 7, outputTokens: 2 } }], [{ text: 'second: {{lastMessage}}' }]] },
      },
    });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => runtime.agents.size === 1 && root.status === 'idle' && reasons(root).length === 2, 'the kid to settle');
    const added: Agent[] = [];
    runtime.onEvent((e) => {
      if (e.type === 'agent_added') added.push(e.agent);
    });
    runtime.sendFromUser(root, 'resume kid');
    await until(() => userMessages(root).some((m) => m.includes('second: again')), 'the resumed report');
    const kid = added.find((a) => a.label === 'kid');
    assert.ok(kid, 'the kid came back under its label');
    const logged = kid.log.events.filter((e) => e.type === 'usage');
    assert.ok(logged.length >= 2, 'both turns recorded their usage');
    const sum = (k: 'inputTokens' | 'outputTokens') => logged.reduce((n, e) => n + (e.type === 'usage' ? e[k] : 0), 0);
    assert.deepStrictEqual(kid.usage, { inputTokens: sum('inputTokens'), outputTokens: sum('outputTokens') }, 'the usage of both turns');
    assert.deepStrictEqual(
      kid.conversation.map((m) => m.content),
      ['work', 'first', 'again', 'second: again'],
    );
    await runtime.dispose();
  });

  it('a non-live caller cannot deliver a message, and nothing is queued', async () => {
    const { runtime, root } = await rootWithHangingChildren('kid');
    const kid = childByLabel(runtime, 'kid');
    await runtime.end(root);
    await assert.rejects(runtime.subagents.deliver(root, kid.id, 'late'), (e: unknown) =>
      unauthorized(e) && /Only a live agent can send messages/.test((e as Error).message),
    );
    assert.strictEqual(kid.pendingCount, 0);
    await assert.rejects(runtime.subagents.deliver(root, 'nobody', 'late'), unauthorized);
    await runtime.dispose();
  });

  it('a message to a child that is ending resumes it cold from the parent, not into the ending agent', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('kid')] }, { text: 'started' }], [{ text: 'ok' }]], afterLastTurn: 'repeat-last' },
        kid: { turns: [[{ text: 'first' }], [{ text: 'again: {{lastMessage}}' }]] },
      },
    });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => runtime.agents.size === 1 && root.status === 'idle' && reasons(root).length === 2, 'the kid to settle');
    const kidId = JSON.parse(toolResults(root)[0].content).agent_id as string;
    const first = await runtime.subagents.deliver(root, kidId, 'one');
    assert.deepStrictEqual(first, { agentId: kidId, resumed: true });
    const live = runtime.agents.get(kidId)!;
    assert.ok(live);
    await until(() => live.status === 'idle' && reasons(live).length === 2, 'the resumed turn');
    await runtime.dispose();
  });

  it('a live child gets the message queued: delivered, not resumed', async () => {
    const { runtime, root } = await rootWithHangingChildren('kid');
    const kid = childByLabel(runtime, 'kid');
    assert.deepStrictEqual(await runtime.subagents.deliver(root, kid.id, 'more'), { agentId: kid.id, resumed: false });
    assert.strictEqual(kid.pendingCount, 1);
    await runtime.dispose();
  });

  it('interrupts: an ancestor cannot stop itself, a stale ancestor is refused, with messages that say why', async () => {
    const { runtime } = await rootWithHangingChildren('kid', 'sib');
    const kid = childByLabel(runtime, 'kid');
    const sib = childByLabel(runtime, 'sib');
    assert.throws(
      () => runtime.subagents.interrupt(kid.id, { kind: 'ancestor', agent: kid }),
      (e: unknown) => unauthorized(e) && /cannot interrupt itself/.test((e as Error).message),
    );
    assert.throws(
      () => runtime.subagents.interrupt(kid.id, { kind: 'ancestor', agent: sib }),
      (e: unknown) => unauthorized(e) && (e as Error).message === `Agent ${kid.id} is not one of your descendants.`,
    );
    assert.throws(
      () => runtime.subagents.interrupt(kid.id, { kind: 'user', parentSessionId: sib.id }),
      (e: unknown) => unauthorized(e) && (e as Error).message === `Agent ${kid.id} does not belong to parent ${sib.id}.`,
    );
    assert.strictEqual(kid.status, 'running', 'refused interrupts touch nothing');
    await runtime.end(sib);
    assert.throws(
      () => runtime.subagents.interrupt(kid.id, { kind: 'ancestor', agent: sib }),
      (e: unknown) => unauthorized(e) && /not live/.test((e as Error).message),
    );
    await runtime.dispose();
  });

  it('the runtime shutting down releases every continuable child, and later messages are refused', async () => {
    const { runtime } = await rootWithHangingChildren('kid', 'kid2');
    const kid = childByLabel(runtime, 'kid');
    const kid2 = childByLabel(runtime, 'kid2');
    await runtime.dispose();
    assert.strictEqual(kid.disposed, true);
    assert.strictEqual(kid2.disposed, true);
    assert.strictEqual(runtime.subagents.liveContinuableCount(), 0);
    assert.strictEqual(runtime.subagents.get(kid.id), undefined);
  });
  it("a settled child can be resumed only by its own parent, not by a live sibling", async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('kid'), start('other')] }, { text: 'started' }], [{ text: 'ok' }]], afterLastTurn: 'repeat-last' },
        kid: { turns: [[{ text: 'done' }]] },
        other: { turns: [[{ hang: true }]] },
      },
    });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => runtime.agents.size === 2 && userMessages(root).some((m) => m.includes('"kid"')), 'the kid to settle');
    const kidId = JSON.parse(toolResults(root)[0].content).agent_id as string;
    const other = childByLabel(runtime, 'other');
    await assert.rejects(runtime.subagents.deliver(other, kidId, 'hijack'), (e: unknown) =>
      isArborError(e, 'SUBAGENT_NOT_FOUND') && (e as Error).message.startsWith(`No subagent ${kidId} of yours is live or resumable.`),
    );
    assert.strictEqual(runtime.agents.get(kidId), undefined, 'the kid was not resumed');
    await runtime.dispose();
  });

  it('a message racing the end of a child finds no child to resume, and never reaches the ended agent', async () => {
    const { runtime, root } = await rootWithHangingChildren('kid');
    const kid = childByLabel(runtime, 'kid');
    const ending = runtime.end(kid);
    await assert.rejects(runtime.subagents.deliver(root, kid.id, 'too late'), (e: unknown) => isArborError(e, 'SUBAGENT_NOT_FOUND'));
    await ending;
    assert.ok(!userMessages(kid).includes('too late'));
    await runtime.end(kid);
  });

  it("ending a child drops its queued messages and records which ones", async () => {
    const { runtime, root } = await rootWithHangingChildren('kid');
    const kid = childByLabel(runtime, 'kid');
    await runtime.subagents.deliver(root, kid.id, 'queued one');
    assert.strictEqual(kid.pendingCount, 1);
    await runtime.end(kid);
    const dropped = kid.log.events.filter((e) => e.type === 'queue_dropped');
    assert.strictEqual(dropped.length, 1, 'the queue was dropped, not parked');
    assert.strictEqual(kid.pendingCount, 0);
    await runtime.dispose();
  });

  it("reports to a parent that has ended are kept on the child's activation, word for word", async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('a')] }, { hang: true }]] },
        a: { turns: [[{ toolCalls: [start('b')] }, { delayMs: 20, text: 'a result' }]] },
        b: { turns: [[{ hang: true }]] },
      },
    });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => runtime.agents.size === 3, 'the family');
    const a = childByLabel(runtime, 'a');
    const activation = runtime.subagents.get(a.id)!;
    assert.deepStrictEqual(activation.undelivered, []);
    await runtime.end(root);
    await until(() => a.status === 'idle' && reasons(a).length === 1, "a's turn to end");
    await until(() => activation.undelivered.length === 1, 'the undelivered report');
    assert.deepStrictEqual(activation.undelivered, [`[Report from subagent "a" (agent_id: ${a.id})] It finished its turn.\na result`]);
    assert.strictEqual(runtime.subagents.isContinuable(a), true);
    assert.strictEqual(runtime.subagents.isContinuable(root), false);
    await runtime.dispose();
  });
});

describe('continuable children, pinned: settling waits for the child itself', () => {
  async function childWithGrandchild() {
    const fx = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('a'), start('s')] }, { text: 'started' }], [{ text: 'ok' }]], afterLastTurn: 'repeat-last' },
        a: { turns: [[{ toolCalls: [start('b')] }, { hang: true }]] },
        b: { turns: [[{ hang: true }]] },
        s: { turns: [[{ hang: true }]] },
      },
    });
    const root = fx.runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => fx.runtime.agents.size === 4, 'the family');
    const a = childByLabel(fx.runtime, 'a');
    await until(() => a.status === 'running' && fx.runtime.agents.size === 4 && toolResults(a).length === 1, 'a to wait');
    return { ...fx, root, a, b: childByLabel(fx.runtime, 'b'), s: childByLabel(fx.runtime, 's') };
  }

  it('a running child whose subagent ends is not settled', async () => {
    const { runtime, a, b } = await childWithGrandchild();
    await runtime.end(b);
    await tick(5);
    assert.strictEqual(runtime.agents.isLive(a), true);
    assert.strictEqual(a.status, 'running');
    await runtime.dispose();
  });

  it('a child the user stopped is not settled when its subagent ends: it waits for a message', async () => {
    const { runtime, a, b } = await childWithGrandchild();
    runtime.stop(a);
    await until(() => a.status === 'idle', 'a to stop');
    await runtime.end(b);
    await tick(5);
    assert.strictEqual(runtime.agents.isLive(a), true, 'a stopped child keeps its conversation live');
    await runtime.dispose();
  });

  it("a sibling is told the child is not its own, in words that say who may send", async () => {
    const { runtime, a, s } = await childWithGrandchild();
    await assert.rejects(runtime.subagents.deliver(s, a.id, 'x'), (e: unknown) =>
      unauthorized(e) && (e as Error).message === `Agent ${a.id} is not your direct subagent; only its direct parent can send it messages.`,
    );
    await runtime.dispose();
  });
});

describe('continuable children, pinned: the manager refuses on its own', () => {
  /** A manager of its own over the runtime's live agents: it is asked directly, not through the runtime's checks. */
  function managerOver(runtime: ReturnType<typeof makeRuntime>['runtime']) {
    const created: string[] = [];
    const manager = new ContinuationManager({
      agents: runtime.agents,
      onEvent: () => ({ dispose: () => undefined }),
      createContinuable: (parent, label) => {
        created.push(label);
        throw new Error(`no child may be created for ${parent.label}`);
      },
    });
    return { manager, created };
  }
  const ended = (label: string) => (e: unknown) =>
    isArborError(e, 'AGENT_DISPOSED') && (e as Error).message === `"${label}" has ended; it cannot start subagents.`;

  it('a parent that has ended cannot start a continuable child, and none is created', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'done' }]] } } });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => root.status === 'idle', 'the root turn');
    const { manager, created } = managerOver(runtime);
    await runtime.end(root);
    assert.throws(() => manager.start(root, 'kid', 'work'), ended('main'));
    assert.deepStrictEqual(created, []);
    await runtime.dispose();
  });

  it('a manager that was disposed starts no child, even for a live parent', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'done' }]] } } });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => root.status === 'idle', 'the root turn');
    const { manager, created } = managerOver(runtime);
    manager.dispose();
    assert.throws(() => manager.start(root, 'kid', 'work'), ended('main'));
    assert.deepStrictEqual(created, []);
    await runtime.dispose();
  });
});
