import * as assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import type { Agent } from '../../../src/core/agents/agent';
import { resolveInteractionPolicy } from '../../../src/core/interaction';
import { ScriptedModel, type ModelScript } from '../../../src/core/models/scriptedModel';
import { Runtime } from '../../../src/core/runtime';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

// A full collection on demand, so that what is still reachable can be told from garbage.
v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/**
 * What an agent at rest keeps of its own: the objects reachable from it (its run, log,
 * conversation, inbox and, for a continuable child, its Activation) that another agent of the
 * same kind does not also reach. The runtime, the model and other agents are not entered: they
 * are everyone's. An agent at rest uses no map, set, function, promise or signal, so it must
 * own none; data it keeps (messages, events, its header) is what it is made of.
 */
function ownObjects(agent: object, extra: readonly object[], shared: ReadonlySet<object>): object[] {
  const seen = new Set<object>();
  const stack: unknown[] = [agent, ...extra];
  while (stack.length > 0) {
    const value = stack.pop();
    if ((typeof value !== 'object' && typeof value !== 'function') || value === null) continue;
    if (seen.has(value) || shared.has(value)) continue;
    seen.add(value);
    if (value instanceof Map) for (const [k, v] of value) stack.push(k, v);
    if (value instanceof Set) for (const v of value) stack.push(v);
    if (value instanceof WeakRef) stack.push(value.deref());
    for (const key of Reflect.ownKeys(value)) {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (descriptor && 'value' in descriptor) stack.push(descriptor.value);
    }
  }
  return [...seen];
}

const UNUSED_AT_REST: Array<[string, (o: object) => boolean]> = [
  ['Map', (o) => o instanceof Map],
  ['Set', (o) => o instanceof Set],
  ['WeakSet', (o) => o instanceof WeakSet],
  ['WeakMap', (o) => o instanceof WeakMap],
  ['function', (o) => typeof o === 'function'],
  ['Promise', (o) => o instanceof Promise],
  ['AbortController', (o) => o instanceof AbortController],
  ['AbortSignal', (o) => o instanceof AbortSignal],
];

function unusedKinds(objects: readonly object[]): string[] {
  return UNUSED_AT_REST.filter(([, is]) => objects.some(is)).map(([kind]) => kind);
}

/** What two agents of a kind both reach, and what neither may enter: the runtime, the model, other agents. */
function sharedBetween(runtime: Runtime, model: object, a: Agent, b: Agent, extraA: readonly object[], extraB: readonly object[]): Set<object> {
  const fence = new Set<object>([runtime, model, ...runtime.agents.all()]);
  const fromA = ownObjects(a, extraA, new Set([...fence].filter((x) => x !== a)));
  const fromB = new Set(ownObjects(b, extraB, new Set([...fence].filter((x) => x !== b))));
  const shared = new Set(fence);
  for (const o of fromA) if (fromB.has(o)) shared.add(o);
  shared.delete(a);
  return shared;
}

describe('what an agent at rest keeps of its own', () => {
  const track = disposeAfterEach();
  it('an idle root after a completed turn owns no map, set, function, promise or signal (its run and log included)', async () => {
    const script: ModelScript = { version: 1, agents: { idle: { turns: [[{ text: 'ready', usage: { inputTokens: 1, outputTokens: 1 } }]] } } };
    const model = new ScriptedModel(script);
    const runtime = new Runtime({ model });
    track(runtime);
    const [a, b] = [runtime.startRoot({ prompt: 'one', label: 'idle' }), runtime.startRoot({ prompt: 'two', label: 'idle' })];
    await Promise.all([a.whenIdle(), b.whenIdle()]);
    assert.equal(a.lastTurnEnd?.reason, 'completed');
    const own = ownObjects(a, [], sharedBetween(runtime, model, a, b, [], []));
    assert.deepEqual(unusedKinds(own), []);
    assert.ok(own.includes(a.run), 'the run is the root\'s own');
  });

  it('a stopped continuable child owns no map, set, function, promise or signal (its Activation included)', async () => {
    const script: ModelScript = { version: 1, agents: { root: { turns: [[{ text: 'ready' }]] }, paused: { turns: [[{ hang: true }]] } } };
    const model = new ScriptedModel(script);
    const runtime = new Runtime({ model });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'root' });
    await root.whenIdle();
    const [a, b] = [runtime.startContinuable(root, 'paused', 'wait 1'), runtime.startContinuable(root, 'paused', 'wait 2')];
    await whenState(runtime, () => a.status === 'running' && b.status === 'running', 'both children to run');
    await new Promise((r) => setImmediate(r));
    runtime.stop(a);
    runtime.stop(b);
    await Promise.all([a.whenIdle(), b.whenIdle()]);
    await whenState(runtime, () => root.pendingCount === 2, 'both reports to reach the parent');
    assert.equal(a.lastTurnEnd?.reason, 'aborted');
    const [actA, actB] = [runtime.subagents.get(a.id)!, runtime.subagents.get(b.id)!];
    const own = ownObjects(a, [actA], sharedBetween(runtime, model, a, b, [actA], [actB]));
    assert.deepEqual(unusedKinds(own), []);
    assert.ok(own.includes(actA), 'the Activation is the child\'s own');
  });

  it('a queued message is kept once (the inbox holds the event its log recorded), and an agent that used no tokens keeps no usage record', async () => {
    const script: ModelScript = { version: 1, agents: { root: { turns: [[{ text: 'ready' }]] }, paused: { turns: [[{ hang: true }]] } } };
    const model = new ScriptedModel(script);
    const runtime = new Runtime({ model });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'root' });
    await root.whenIdle();
    const child = runtime.startContinuable(root, 'paused', 'wait');
    await whenState(runtime, () => child.status === 'running', 'the child to run');
    await new Promise((r) => setImmediate(r));
    runtime.stop(child);
    await child.whenIdle();
    await whenState(runtime, () => root.pendingCount === 1, 'the report to reach the parent');
    const report = [...root.log.events].reverse().find((e) => e.type === 'queued');
    assert.ok(report?.type === 'queued' && report.from === 'child');
    const fence = new Set<object>([runtime, model, child]);
    const holdingReport = ownObjects(root, [], fence).filter((o) => (o as { text?: unknown }).text === report.text);
    assert.deepEqual(holdingReport, [report]);
    const ownUsage = ownObjects(child, [], new Set([runtime, model, root])).filter((o) => 'inputTokens' in o && 'outputTokens' in o);
    assert.deepEqual(ownUsage, []);
    assert.deepEqual(child.usage, { inputTokens: 0, outputTokens: 0 });
  });

  it('the events an agent records keep no field left undefined (a completed turn, a Stop, queued messages)', async () => {
    const script: ModelScript = { version: 1, agents: { root: { turns: [[{ text: 'ready' }]] }, paused: { turns: [[{ hang: true }]] } } };
    const model = new ScriptedModel(script);
    const runtime = new Runtime({ model });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'root' });
    await root.whenIdle();
    const child = runtime.startContinuable(root, 'paused', 'wait');
    await whenState(runtime, () => child.status === 'running', 'the child to run');
    await new Promise((r) => setImmediate(r));
    runtime.stop(child);
    await child.whenIdle();
    await whenState(runtime, () => root.pendingCount === 1, 'the report to reach the parent');
    const events = [...root.log.events, ...child.log.events];
    assert.ok(['queued', 'turn_end', 'interrupt'].every((type) => events.some((e) => e.type === type)), events.map((e) => e.type).join());
    const withUndefined = events.filter((e) => Object.values(e).includes(undefined));
    assert.deepEqual(withUndefined, []);
  });

  it('idle agents keep no turn signal of their own: the signals of finished turns are not kept one per agent', async () => {
    const signals: AbortSignal[] = [];
    const model = {
      id: 'signals',
      label: 'signals',
      async *stream(request: { signal: AbortSignal }) {
        signals.push(request.signal);
        yield { type: 'text' as const, text: 'ok' };
      },
    };
    const runtime = new Runtime({ model });
    track(runtime);
    const agents = Array.from({ length: 20 }, (_, i) => runtime.startRoot({ prompt: `go ${i}`, label: `a${i}` }));
    await Promise.all(agents.map((a) => a.whenIdle()));
    assert.equal(signals.length, 20);
    assert.equal(new Set(signals).size, 20, 'the turns ran at once, each with its own signal');
    const refs = signals.map((s) => new WeakRef(s));
    signals.length = 0;
    await new Promise((r) => setImmediate(r));
    gc();
    const kept = refs.filter((r) => r.deref() !== undefined).length;
    assert.ok(kept <= 8, `${kept} of 20 idle agents' signals are still reachable`);
    assert.ok(agents.every((a) => runtime.agents.isLive(a) && a.status === 'idle'));
  });

  it('runs resolved to the same mode share one frozen policy', () => {
    assert.equal(resolveInteractionPolicy({}), resolveInteractionPolicy({}));
    assert.equal(resolveInteractionPolicy({ interactionMode: 'scheduled' }), resolveInteractionPolicy({ interactionMode: 'scheduled' }));
    assert.notEqual(resolveInteractionPolicy({ interactionMode: 'scheduled' }), resolveInteractionPolicy({ nonInteractive: true }));
    assert.ok(Object.isFrozen(resolveInteractionPolicy({})));
  });
});
