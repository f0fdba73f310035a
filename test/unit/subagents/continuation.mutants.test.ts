import * as assert from 'assert';
import type { Agent } from '../../../src/core/agents/agent';
import { isArborError, type ArborErrorCode } from '../../../src/core/errors';
import type { SessionSnapshot } from '../../../src/core/agents/sessionSnapshot';
import { MemorySessionLog } from '../../../src/core/sessions/memoryLog';
import { ContinuationManager, type Activation, type LoadedSettledChild } from '../../../src/core/subagents';
import { childByLabel, makeRuntime, reasons, tick, toolResults, until, userMessages } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

// Continuable children as their parent and the user see them: when a child settles, what its
// reports say, and who may reach it.

const start = (label: string, prompt = 'work') => ({ name: 'start_subagent', arguments: { label, prompt } });

/**
 * A root "main" that starts one continuable child per label, each hanging in its first model
 * call; resolves once they all run and the root is idle.
 */
async function rootWithHangingChildren(...labels: string[]) {
  const { runtime, problems } = makeRuntime({
    version: 1,
    agents: {
      main: { turns: [[{ toolCalls: labels.map((l) => start(l)) }, { text: 'started' }], [{ text: 'ok' }]], afterLastTurn: 'repeat-last' },
      ...Object.fromEntries(labels.map((l) => [l, { turns: [[{ hang: true }]] }])),
    },
  });
  const root = runtime.startRoot({ prompt: 'go', label: 'main' });
  await whenState(runtime, () => runtime.agents.size === labels.length + 1 && root.status === 'idle', 'the children to start');
  return { runtime, root, problems };
}
const unauthorized = (e: unknown) => isArborError(e, 'SUBAGENT_UNAUTHORIZED');

describe('continuable children, pinned', () => {
  const track = disposeAfterEach();
  it('a child with a running subagent is not released when its turn ends; it settles once that subagent is gone, and says so', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('a')] }, { text: 'started' }], [{ text: 'ok' }]], afterLastTurn: 'repeat-last' },
        a: { turns: [[{ toolCalls: [start('b')] }, { text: 'a is done' }]] },
        b: { turns: [[{ hang: true }]] },
      },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 3, 'the grandchild');
    const a = childByLabel(runtime, 'a');
    const b = childByLabel(runtime, 'b');
    await whenState(runtime, () => userMessages(root).some((m) => m.includes('a is done')) && root.status === 'idle', "a's report");
    const first = userMessages(root).find((m) => m.includes('a is done'))!;
    assert.strictEqual(first, `[Report from subagent "a" (agent_id: ${a.id})] It finished its turn.\na is done`);
    assert.strictEqual(runtime.agents.isLive(a), true, 'a child is not released while its grandchild still runs');
    assert.strictEqual(a.status, 'idle');

    await runtime.end(b);
    await whenState(runtime, () => !runtime.agents.isLive(a), 'a to settle');
    await whenState(runtime, () => root.status === 'idle' && userMessages(root).length === 3, 'the settle report');
    assert.strictEqual(
      userMessages(root)[2],
      `[Subagent "a" (agent_id: ${a.id})] Its own subagents have finished.\n` +
        `It is now idle and has been released; send_message to ${a.id} resumes it with its conversation.`,
    );
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
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => userMessages(root).some((m) => m.includes('was interrupted')), 'the interrupt report');
    const kid = childByLabel(runtime, 'kid');
    const report = userMessages(root).find((m) => m.includes('was interrupted'))!;
    assert.strictEqual(
      report,
      `[Report from subagent "kid" (agent_id: ${kid.id})] It was interrupted (parent); it keeps its conversation and waits for a message.`,
    );
    assert.strictEqual(runtime.agents.isLive(kid), true, 'a stopped child is not released');
  });

  it("a child stopped by the user is reported as stopped, and the report does not wake the parent", async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('kid')] }, { text: 'started' }], [{ text: 'woken' }]], afterLastTurn: 'repeat-last' },
        kid: { turns: [[{ hang: true }]] },
      },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 2 && root.status === 'idle', 'the kid to run');
    const kid = childByLabel(runtime, 'kid');
    await whenState(runtime, () => kid.status === 'running', 'the kid turn');
    runtime.stop(kid);
    await whenState(runtime, () => root.pendingCount === 1, 'the report to be queued');
    await tick(5);
    assert.strictEqual(root.status, 'idle', 'a stopped child does not restart its parent');
    assert.deepStrictEqual(reasons(root), ['completed']);
    runtime.sendFromUser(root, 'next');
    await whenState(runtime, () => userMessages(root).includes('next') && root.status === 'idle' && root.pendingCount === 0, 'the next turns');
    assert.strictEqual(
      userMessages(root)[1],
      `[Report from subagent "kid" (agent_id: ${kid.id})] It was stopped by the user; it keeps its conversation and waits for a message.`,
    );
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
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 1 && root.status === 'idle' && userMessages(root).length >= 3, 'both reports');
    const msgs = userMessages(root);
    const failed = msgs.find((m) => m.includes('"bad"'))!;
    assert.match(failed, /^\[Report from subagent "bad" \(agent_id: [^)]+\)\] It failed \(.*the model is down.*\)\.\nIt is now idle and has been released/);
    const limited = msgs.find((m) => m.includes('"long"'))!;
    assert.match(limited, /It hit a run limit \(a turn may make at most 2 model calls\)\./);
    assert.match(limited, /has been released/);
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
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 1 && root.status === 'idle' && reasons(root).length === 2, 'the kid to settle');
    const added: Agent[] = [];
    runtime.onEvent((e) => {
      if (e.type === 'agent_added') added.push(e.agent);
    });
    runtime.sendFromUser(root, 'resume kid');
    await whenState(runtime, () => userMessages(root).some((m) => m.includes('second: again')), 'the resumed report');
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
  });

  it('a non-live caller cannot deliver a message, and nothing is queued', async () => {
    const { runtime, root } = await rootWithHangingChildren('kid');
    track(runtime);
    const kid = childByLabel(runtime, 'kid');
    await runtime.end(root);
    await assert.rejects(runtime.subagents.deliver(root, kid.id, 'late'), (e: unknown) =>
      unauthorized(e) && /Only a live agent can send messages/.test((e as Error).message),
    );
    assert.strictEqual(kid.pendingCount, 0);
    await assert.rejects(runtime.subagents.deliver(root, 'nobody', 'late'), unauthorized);
  });

  it('a message to a child that is ending resumes it cold from the parent, not into the ending agent', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('kid')] }, { text: 'started' }], [{ text: 'ok' }]], afterLastTurn: 'repeat-last' },
        kid: { turns: [[{ text: 'first' }], [{ text: 'again: {{lastMessage}}' }]] },
      },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 1 && root.status === 'idle' && reasons(root).length === 2, 'the kid to settle');
    const kidId = JSON.parse(toolResults(root)[0].content).agent_id as string;
    const first = await runtime.subagents.deliver(root, kidId, 'one');
    assert.deepStrictEqual(first, { agentId: kidId, resumed: true });
    const live = runtime.agents.get(kidId)!;
    assert.ok(live);
    await whenState(runtime, () => live.status === 'idle' && reasons(live).length === 2, 'the resumed turn');
  });

  it('a live child gets the message queued: delivered, not resumed', async () => {
    const { runtime, root } = await rootWithHangingChildren('kid');
    track(runtime);
    const kid = childByLabel(runtime, 'kid');
    assert.deepStrictEqual(await runtime.subagents.deliver(root, kid.id, 'more'), { agentId: kid.id, resumed: false });
    assert.strictEqual(kid.pendingCount, 1);
  });

  it('interrupts: an ancestor cannot stop itself, a stale ancestor is refused, with messages that say why', async () => {
    const { runtime } = await rootWithHangingChildren('kid', 'sib');
    track(runtime);
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
  });

  it('the runtime shutting down releases every continuable child, and later messages are refused', async () => {
    const { runtime } = await rootWithHangingChildren('kid', 'kid2');
    track(runtime);
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
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 2 && userMessages(root).some((m) => m.includes('"kid"')), 'the kid to settle');
    const kidId = JSON.parse(toolResults(root)[0].content).agent_id as string;
    const other = childByLabel(runtime, 'other');
    await assert.rejects(runtime.subagents.deliver(other, kidId, 'hijack'), (e: unknown) =>
      isArborError(e, 'SUBAGENT_NOT_FOUND') && (e as Error).message.startsWith(`No subagent ${kidId} of yours is live or resumable.`),
    );
    assert.strictEqual(runtime.agents.get(kidId), undefined, 'the kid was not resumed');
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
    track(runtime);
    const kid = childByLabel(runtime, 'kid');
    await runtime.subagents.deliver(root, kid.id, 'queued one');
    assert.strictEqual(kid.pendingCount, 1);
    await runtime.end(kid);
    const dropped = kid.log.events.filter((e) => e.type === 'queue_dropped');
    assert.strictEqual(dropped.length, 1, 'the queue was dropped, not parked');
    assert.strictEqual(kid.pendingCount, 0);
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
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 3, 'the family');
    const a = childByLabel(runtime, 'a');
    const activation = runtime.subagents.get(a.id)!;
    assert.deepStrictEqual(activation.undelivered, []);
    await runtime.end(root);
    await whenState(runtime, () => a.status === 'idle' && reasons(a).length === 1, "a's turn to end");
    await until(() => activation.undelivered.length === 1, 'the undelivered report');
    assert.deepStrictEqual(activation.undelivered, [`[Report from subagent "a" (agent_id: ${a.id})] It finished its turn.\na result`]);
    assert.strictEqual(runtime.subagents.isContinuable(a), true);
    assert.strictEqual(runtime.subagents.isContinuable(root), false);
  });
});

describe('continuable children, pinned: settling waits for the child itself', () => {
  const track = disposeAfterEach();
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
    await whenState(fx.runtime, () => fx.runtime.agents.size === 4, 'the family');
    const a = childByLabel(fx.runtime, 'a');
    await whenState(fx.runtime, () => a.status === 'running' && fx.runtime.agents.size === 4 && toolResults(a).length === 1, 'a to wait');
    return { ...fx, root, a, b: childByLabel(fx.runtime, 'b'), s: childByLabel(fx.runtime, 's') };
  }

  it('a running child whose subagent ends is not settled', async () => {
    const { runtime, a, b } = await childWithGrandchild();
    track(runtime);
    await runtime.end(b);
    await tick(5);
    assert.strictEqual(runtime.agents.isLive(a), true);
    assert.strictEqual(a.status, 'running');
  });

  it('a child the user stopped is not settled when its subagent ends: it waits for a message', async () => {
    const { runtime, a, b } = await childWithGrandchild();
    track(runtime);
    runtime.stop(a);
    await whenState(runtime, () => a.status === 'idle', 'a to stop');
    await runtime.end(b);
    await tick(5);
    assert.strictEqual(runtime.agents.isLive(a), true, 'a stopped child keeps its conversation live');
  });

  it("a sibling is told the child is not its own, in words that say who may send", async () => {
    const { runtime, a, s } = await childWithGrandchild();
    track(runtime);
    await assert.rejects(runtime.subagents.deliver(s, a.id, 'x'), (e: unknown) =>
      unauthorized(e) && (e as Error).message === `Agent ${a.id} is not your direct subagent; only its direct parent can send it messages.`,
    );
  });
});

describe('continuable children, pinned: the manager refuses on its own', () => {
  const track = disposeAfterEach();
  /** A manager of its own over the runtime's live agents: it is asked directly, not through the runtime's checks. */
  function managerOver(runtime: ReturnType<typeof makeRuntime>['runtime']) {
    const created: string[] = [];
    const manager = new ContinuationManager({
      agents: runtime.agents,
      onEvents: () => ({ dispose: () => undefined }),
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
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => root.status === 'idle', 'the root turn');
    const { manager, created } = managerOver(runtime);
    await runtime.end(root);
    assert.throws(() => manager.start(root, 'kid', 'work'), ended('main'));
    assert.deepStrictEqual(created, []);
  });

  it('a manager that was disposed starts no child, even for a live parent', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'done' }]] } } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => root.status === 'idle', 'the root turn');
    const { manager, created } = managerOver(runtime);
    manager.dispose();
    assert.throws(() => manager.start(root, 'kid', 'work'), ended('main'));
    assert.deepStrictEqual(created, []);
  });
});

describe('continuable children, pinned: resuming a settled child from durable sessions', () => {
  const track = disposeAfterEach();
  /** A settled child's session as the store hands it back, open for writing until `discard`. */
  function storedChild(id: string, parentSession: string, extra: { external?: string; label?: string } = {}) {
    let discarded = 0;
    const loaded: LoadedSettledChild = {
      log: new MemorySessionLog({
        type: 'header',
        version: 1,
        id,
        createdAt: '2026-11-30T00:00:00.000Z',
        parentSession,
        delegationDepth: 1,
        kind: 'continuable',
        label: extra.label ?? 'kid',
        interactionMode: 'interactive',
        ...(extra.external ? { external: extra.external } : {}),
      }),
      conversation: [{ role: 'user', content: 'earlier work' }],
      turns: 2,
      usage: { inputTokens: 5, outputTokens: 7 },
      discard: () => void discarded++,
    };
    return { loaded, discards: () => discarded };
  }

  /** A child the manager creates from a snapshot: it records what it was sent. */
  function fakeChild(id: string, label: string): { child: Agent; sent: Array<{ text: string; from?: string }> } {
    const sent: Array<{ text: string; from?: string }> = [];
    const child: Agent = {
      id,
      label,
      kind: 'continuable',
      isHeld: false,
      disposed: false,
      send: (text: string, options: { from?: string }) => void sent.push({ text, from: options.from }),
      hold: () => undefined,
      dispose: () => undefined,
      // Only what the manager touches of the child it creates: the rest of an Agent is never reached here.
    } as never;
    return { child, sent };
  }

  /** A manager over the runtime's live agents whose durable sessions are read back when the test says. */
  function managerWithStore(runtime: ReturnType<typeof makeRuntime>['runtime']) {
    const loads: Array<{ caller: string; target: string; resolve: (c: LoadedSettledChild | undefined) => void; reject: (e: unknown) => void }> = [];
    const created: Array<{ parent: string; label: string; snapshot: SessionSnapshot | undefined; sent: Array<{ text: string; from?: string }> }> = [];
    const manager = new ContinuationManager({
      agents: runtime.agents,
      onEvents: () => ({ dispose: () => undefined }),
      createContinuable: (parent, label, resumeFrom) => {
        const { child, sent } = fakeChild(resumeFrom?.log.header.id ?? `${label}-new`, label);
        created.push({ parent: parent.id, label, snapshot: resumeFrom, sent });
        return child;
      },
      loadSettled: (caller, targetId) =>
        new Promise<LoadedSettledChild | undefined>((resolve, reject) => loads.push({ caller: caller.id, target: targetId, resolve, reject })),
    });
    return { manager, loads, created };
  }

  async function idleRoot() {
    const fx = makeRuntime({ version: 1, agents: { main: { turns: [[{ text: 'done' }]], afterLastTurn: 'repeat-last' } } });
    const root = fx.runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(fx.runtime, () => root.status === 'idle', 'the root turn');
    return { ...fx, root };
  }

  it('a stored child of the caller comes back with its label and conversation, and gets the message from its parent', async () => {
    const { runtime, root } = await idleRoot();
    track(runtime);
    const { manager, loads, created } = managerWithStore(runtime);
    track(manager);
    const stored = storedChild('kid-1', root.id, { label: 'Researcher' });
    const delivery = manager.deliver(root, 'kid-1', 'go on');
    await until(() => loads.length === 1, 'the store to be asked');
    assert.deepStrictEqual({ caller: loads[0].caller, target: loads[0].target }, { caller: root.id, target: 'kid-1' });
    loads[0].resolve(stored.loaded);
    assert.deepStrictEqual(await delivery, { agentId: 'kid-1', resumed: true });
    assert.strictEqual(created.length, 1);
    assert.strictEqual(created[0].parent, root.id);
    assert.strictEqual(created[0].label, 'Researcher', 'the label is the stored header\'s');
    assert.strictEqual(created[0].snapshot, stored.loaded, 'the child starts from the stored conversation');
    assert.deepStrictEqual(created[0].sent, [{ text: 'go on', from: 'parent' }]);
    assert.strictEqual(stored.discards(), 0, 'a session taken over is not closed');
    assert.strictEqual(manager.liveContinuableCount(), 1);
    assert.strictEqual(manager.get('kid-1')?.parent, root);
  });

  it('two messages while the session is read back: the store is asked once, and both reach the one child in order', async () => {
    const { runtime, root } = await idleRoot();
    track(runtime);
    const { manager, loads, created } = managerWithStore(runtime);
    track(manager);
    const stored = storedChild('kid-1', root.id);
    const first = manager.deliver(root, 'kid-1', 'one');
    const second = manager.deliver(root, 'kid-1', 'two');
    await until(() => loads.length === 1, 'the store to be asked');
    await tick(5);
    assert.strictEqual(loads.length, 1, 'the second message waits for the first read');
    loads[0].resolve(stored.loaded);
    assert.deepStrictEqual(await first, { agentId: 'kid-1', resumed: true });
    assert.deepStrictEqual(await second, { agentId: 'kid-1', resumed: false });
    assert.strictEqual(created.length, 1);
    assert.deepStrictEqual(created[0].sent.map((s) => s.text), ['one', 'two']);
  });

  it('a read that fails lets the next message read again', async () => {
    const { runtime, root } = await idleRoot();
    track(runtime);
    const { manager, loads, created } = managerWithStore(runtime);
    track(manager);
    const first = manager.deliver(root, 'kid-1', 'one');
    await until(() => loads.length === 1, 'the store to be asked');
    loads[0].reject(new Error('disk gone'));
    await assert.rejects(first, /disk gone/);
    const second = manager.deliver(root, 'kid-1', 'two');
    await until(() => loads.length === 2, 'the store to be asked again');
    loads[1].resolve(storedChild('kid-1', root.id).loaded);
    assert.deepStrictEqual(await second, { agentId: 'kid-1', resumed: true });
    assert.deepStrictEqual(created[0].sent.map((s) => s.text), ['two']);
  });

  /**
   * The root sends "go on" to `target`; once the store is asked, `meanwhile` runs, then the store
   * answers with `stored`. The message must be refused as `refused`, the session read back closed
   * again, and no child created.
   */
  async function refusedAfterRead(
    target: string,
    stored: (rootId: string) => ReturnType<typeof storedChild> | undefined,
    refused: (e: unknown) => boolean,
    meanwhile: (fx: { runtime: ReturnType<typeof makeRuntime>['runtime']; manager: ContinuationManager; root: Agent }) => unknown = () => undefined,
  ): Promise<void> {
    const { runtime, root } = await idleRoot();
    const { manager, loads, created } = managerWithStore(runtime);
    const child = stored(root.id);
    const delivery = manager.deliver(root, target, 'go on');
    await until(() => loads.length === 1, 'the store to be asked');
    await meanwhile({ runtime, manager, root });
    loads[0].resolve(child?.loaded);
    await assert.rejects(delivery, refused);
    if (child) assert.strictEqual(child.discards(), 1, 'the session read back is closed again');
    assert.deepStrictEqual(created, []);
    manager.dispose();
    await runtime.dispose();
  }
  const refusal = (code: ArborErrorCode, message: string) => (e: unknown) => isArborError(e, code) && (e as Error).message === message;

  it('a session read back while Arbor shuts down is closed, and the message refused as AGENT_DISPOSED', () =>
    refusedAfterRead('kid-1', (rootId) => storedChild('kid-1', rootId), refusal('AGENT_DISPOSED', 'Arbor is shutting down.'), ({ manager }) =>
      manager.dispose(),
    ));

  it('a session read back after its parent ended is closed, and the message refused as SUBAGENT_UNAUTHORIZED', () =>
    refusedAfterRead(
      'kid-1',
      (rootId) => storedChild('kid-1', rootId),
      refusal('SUBAGENT_UNAUTHORIZED', 'Only a live agent can send messages to its subagents.'),
      ({ runtime, root }) => runtime.end(root),
    ));

  it('a stored session of another parent is closed again, and the caller is told it has no such subagent', () =>
    refusedAfterRead(
      'kid-1',
      () => storedChild('kid-1', 'someone-else'),
      refusal('SUBAGENT_NOT_FOUND', 'No subagent kid-1 of yours is live or resumable. Use list_agents to see your subagents, or start a new one.'),
    ));

  it('nothing stored under that id: SUBAGENT_NOT_FOUND, and no child is created', () =>
    refusedAfterRead(
      'kid-9',
      () => undefined,
      refusal('SUBAGENT_NOT_FOUND', 'No subagent kid-9 of yours is live or resumable. Use list_agents to see your subagents, or start a new one.'),
    ));

  it('a stored external agent is not resumed: its session is closed and the message refused as EXTERNAL_NOT_RESUMABLE, naming it', () =>
    refusedAfterRead(
      'kid-1',
      (rootId) => storedChild('kid-1', rootId, { external: 'Test Agent' }),
      refusal('EXTERNAL_NOT_RESUMABLE', 'Subagent kid-1 was the external agent Test Agent, which has ended; start it again with start_external_agent.'),
    ));

  it('after shutdown a message is refused as AGENT_DISPOSED and reads nothing back from durable sessions', async () => {
    const { runtime, root } = await idleRoot();
    track(runtime);
    const { manager, loads, created } = managerWithStore(runtime);
    manager.dispose();
    await assert.rejects(manager.deliver(root, 'kid-1', 'go on'), (e: unknown) => isArborError(e, 'AGENT_DISPOSED') && (e as Error).message === 'Arbor is shutting down.');
    assert.strictEqual(loads.length, 0);
    assert.deepStrictEqual(created, []);
  });
});

describe('continuable children, pinned: what the manager reacts to', () => {
  const track = disposeAfterEach();
  it('a message queued for a running child sends its parent no report', async () => {
    const { runtime, root } = await rootWithHangingChildren('kid');
    track(runtime);
    const kid = childByLabel(runtime, 'kid');
    const before = userMessages(root).length;
    await runtime.subagents.deliver(root, kid.id, 'more work');
    await whenState(runtime, () => kid.pendingCount === 1, 'the message to queue');
    await tick(5);
    assert.strictEqual(userMessages(root).length, before, 'only a turn end or a settle is reported');
  });

  it('no event listener fails while children end mid-turn, settle, and roots end', async () => {
    const { runtime, root, problems } = await rootWithHangingChildren('kid', 'other');
    track(runtime);
    const kid = childByLabel(runtime, 'kid');
    await runtime.end(kid);
    await whenState(runtime, () => kid.status === 'idle', 'the ended turn to close');
    await tick(5);
    await runtime.end(root);
    await tick(5);
    await runtime.dispose();
    assert.deepStrictEqual(problems, []);
  });

  it('an Activation a view holds reads as disposing once its child settled, was ended, or Arbor shut down', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('quick'), start('slow'), start('last')] }, { text: 'started' }], [{ text: 'ok' }]], afterLastTurn: 'repeat-last' },
        quick: { turns: [[{ text: 'done' }]] },
        slow: { turns: [[{ hang: true }]] },
        last: { turns: [[{ hang: true }]] },
      },
    });
    track(runtime);
    // What a view keeps: each child's Activation, taken as soon as the child changes.
    const held = new Map<string, Activation>();
    runtime.onEvent((event) => {
      const activation = event.type === 'agent_changed' ? runtime.subagents.get(event.agent.id) : undefined;
      if (activation && !held.has(event.agent.label)) held.set(event.agent.label, activation);
    });
    const main = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => held.size === 3 && runtime.agents.size === 3, 'quick to settle and the others to run');
    assert.strictEqual(held.get('quick')!.disposing, true, 'settled');
    assert.strictEqual(held.get('slow')!.disposing, false);
    await runtime.end(held.get('slow')!.agent);
    assert.strictEqual(held.get('slow')!.disposing, true, 'ended');
    assert.strictEqual(held.get('last')!.disposing, false);
    assert.strictEqual(main.kind, 'root');
    await runtime.dispose();
    assert.strictEqual(held.get('last')!.disposing, true, 'shut down');
  });

  it('a child ended as its turn ends is not settled: no release report, and it cannot be resumed', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('kid')] }, { text: 'started' }], [{ text: 'ok' }]], afterLastTurn: 'repeat-last' },
        kid: { turns: [[{ text: 'kid result' }]] },
      },
    });
    track(runtime);
    let ending: Promise<void> | undefined;
    runtime.onEvent((event) => {
      if (event.type === 'agent_changed' && event.change.type === 'turn_end' && event.agent.label === 'kid' && !ending) {
        ending = runtime.end(event.agent);
      }
    });
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await until(() => ending !== undefined, 'the kid to end');
    await ending;
    await whenState(runtime, () => root.status === 'idle' && reasons(root).length >= 2, 'the root to settle down');
    await tick(5);
    const kidId = JSON.parse(toolResults(root)[0].content).agent_id as string;
    assert.ok(!userMessages(root).some((m) => m.includes('has been released')), 'an ended child is not reported as released');
    await assert.rejects(runtime.subagents.deliver(root, kidId, 'again'), (e: unknown) => isArborError(e, 'SUBAGENT_NOT_FOUND'));
  });

  it('a child with a message waiting is not released when its last subagent ends', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [start('a')] }, { text: 'started' }], [{ text: 'ok' }]], afterLastTurn: 'repeat-last' },
        a: { turns: [[{ toolCalls: [start('b')] }, { text: 'a is done' }]], afterLastTurn: 'repeat-last' },
        b: { turns: [[{ hang: true }]] },
      },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 3, 'the grandchild');
    const a = childByLabel(runtime, 'a');
    const b = childByLabel(runtime, 'b');
    await whenState(runtime, () => a.status === 'idle' && userMessages(root).some((m) => m.includes('a is done')), "a's turn to end");
    a.send('waiting for later', { from: 'parent', wake: false });
    assert.strictEqual(a.pendingCount, 1);
    await runtime.end(b);
    await tick(5);
    assert.strictEqual(runtime.agents.isLive(a), true, 'a waiting message keeps the child live');
    assert.strictEqual(a.pendingCount, 1);
  });

  it('ending an agent the manager does not own (a root, or one already ending) does nothing', async () => {
    const { runtime, root } = await rootWithHangingChildren('kid');
    track(runtime);
    const manager = new ContinuationManager({ agents: runtime.agents, onEvents: () => ({ dispose: () => undefined }), createContinuable: () => { throw new Error('none'); } });
    await manager.end(root);
    assert.strictEqual(runtime.agents.isLive(root), true);
    const kid = childByLabel(runtime, 'kid');
    const removals: string[] = [];
    runtime.onEvent((e) => void (e.type === 'agent_removed' && removals.push(e.agent.id)));
    const first = runtime.end(kid);
    const second = runtime.end(kid);
    await Promise.all([first, second]);
    assert.deepStrictEqual(removals, [kid.id]);
    assert.strictEqual(kid.log.events.filter((e) => e.type === 'queue_dropped').length <= 1, true);
  });
});
