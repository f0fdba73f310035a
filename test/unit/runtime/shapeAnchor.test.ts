import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as z from 'zod';
import { Runtime, type RuntimeTool } from '../../../src/core';
import { Agent } from '../../../src/core/agents/agent';
import { StreamRead, TurnAbort } from '../../../src/core/agents/turnAbort';
import { TurnLoop } from '../../../src/core/agents/turnLoop';
import { RunawayDetector } from '../../../src/core/budgets/runaway';
import { ScriptedModel } from '../../../src/core/models/scriptedModel';
import { JsonlSessionStore } from '../../../src/core/sessions';
import { JsonlSessionLog } from '../../../src/core/sessions/jsonlSessionLog';
import { MemorySessionLog } from '../../../src/core/sessions/memoryLog';
import { shapeAnchors } from '../../../src/core/shapeAnchor';
import { forged } from '../../support/forged';

// V8's own test of two objects' hidden classes. The natives syntax stays on: V8 may compile the
// function's body only at its call (or again after dropping its bytecode), which must still parse.
v8.setFlagsFromString('--allow-natives-syntax');
const haveSameMap = forged<(a: object, b: object) => boolean>(new Function('a', 'b', 'return %HaveSameMap(a, b);'));

/** The private parts of an agent, as its anchor and a real one hold them. */
type AgentParts = { queue: object; turns: object; log: { inner: object } };
const partsOf = (agent: object): AgentParts => forged<AgentParts>(agent);

function anchorOf(type: abstract new (...args: never[]) => object): object {
  const found = shapeAnchors().find((a) => a.constructor === type);
  assert.ok(found, `no anchor of ${type.name}`);
  return found;
}

/** Collects every instance a method of `type` is called on while the test runs. */
function instancesOf<T extends object>(type: { prototype: T }, method: keyof T & string, seen: object[]): () => void {
  const proto = forged<Record<string, (...args: unknown[]) => unknown>>(type.prototype);
  const original = proto[method];
  proto[method] = function (this: object, ...args: unknown[]) {
    if (!seen.includes(this)) seen.push(this);
    return original.apply(this, args);
  };
  return () => void (proto[method] = original);
}

/** A root that delegates to three one-shot workers of three model calls each; every agent it made, the root first. */
async function fanOut(sessions?: JsonlSessionStore, added?: (agent: Agent) => void): Promise<Agent[]> {
  const agents: Agent[] = [];
  const usage = { inputTokens: 1, outputTokens: 1 };
  const model = new ScriptedModel({
    version: 1,
    agents: {
      root: { turns: [[{ toolCalls: [0, 1, 2].map((i) => ({ name: 'delegate_task', arguments: { label: 'worker', prompt: `task ${i}` } })), usage }, { text: 'all done', usage }]] },
      worker: { turns: [[{ toolCalls: [{ name: 'noop', arguments: {} }], usage }, { toolCalls: [{ name: 'noop', arguments: {} }], usage }, { text: 'done', usage }]] },
    },
  });
  const noop: RuntimeTool = { name: 'noop', description: 'does nothing', schema: () => z.object({}), readOnly: true, run: () => ({ content: 'ok' }) };
  const runtime = new Runtime({ model, tools: [noop], sessions });
  runtime.onEvent((e) => {
    if (e.type !== 'agent_added') return;
    agents.push(e.agent);
    added?.(e.agent);
  });
  const root = runtime.startRoot({ prompt: 'fan out', label: 'root' });
  await root.whenIdle();
  assert.equal(root.lastTurnEnd?.reason, 'completed');
  await sessions?.flushAll();
  await runtime.dispose();
  return agents;
}

function assertSameMaps(checks: [string, object, object[]][]): void {
  for (const [name, anchor, real] of checks) {
    assert.ok(real.length > 0, `no ${name} was made`);
    real.forEach((object, i) => assert.ok(haveSameMap(anchor, object), `${name} ${i} has another hidden class than its anchor`));
  }
}

describe('shape anchors', () => {
  it("each anchor has the hidden class of the real objects of a fan-out, so the fan-out's optimized code outlives its last agent", async () => {
    const seen = { loops: [] as object[], aborts: [] as object[], reads: [] as object[], detectors: [] as object[] };
    const restore = [
      instancesOf(TurnLoop, 'run', seen.loops),
      instancesOf(TurnAbort, 'end', seen.aborts),
      instancesOf(StreamRead, 'pull', seen.reads),
      instancesOf(RunawayDetector, 'toolCalled', seen.detectors),
    ];
    let agents: Agent[];
    try {
      agents = await fanOut();
    } finally {
      for (const undo of restore) undo();
    }
    assert.equal(agents.length, 4);
    const agent = anchorOf(Agent);
    const checks: [string, object, object[]][] = [
      ['Agent', agent, agents],
      ['AgentQueue', partsOf(agent).queue, agents.map((a) => partsOf(a).queue)],
      ['AgentTurns', partsOf(agent).turns, agents.map((a) => partsOf(a).turns)],
      ['AgentLog', partsOf(agent).log, agents.map((a) => partsOf(a).log)],
      ['MemorySessionLog', anchorOf(MemorySessionLog), agents.map((a) => partsOf(a).log.inner)],
      ['TurnLoop', anchorOf(TurnLoop), seen.loops],
      ['TurnAbort', anchorOf(TurnAbort), seen.aborts],
      ['StreamRead', anchorOf(StreamRead), seen.reads],
      ['RunawayDetector', anchorOf(RunawayDetector), seen.detectors],
    ];
    assertSameMaps(checks);
  });

  it("a durable log's anchor, and its parts', have the hidden classes of a fan-out's session logs, the root's and the one-shot workers'", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-anchor-'));
    const store = new JsonlSessionStore(dir);
    type LogParts = { writer: { lines: object; seat?: object }; problems: object; lock: object };
    const partsOfLog = (log: object): LogParts => forged<LogParts>(log);
    // A worker's place in the journal goes once its file is written: it is taken while the log is new.
    const seats: object[] = [];
    try {
      const agents = await fanOut(store, (agent) => {
        const seat = partsOfLog(partsOf(agent).log.inner).writer.seat;
        if (seat) seats.push(seat);
      });
      const logs = agents.map((a) => partsOf(a).log.inner);
      assert.ok(logs.every((log) => log instanceof JsonlSessionLog));
      const anchor = anchorOf(JsonlSessionLog);
      const parts = partsOfLog(anchor);
      assert.equal(seats.length, 3, 'each one-shot worker starts in the journal');
      assertSameMaps([
        ['JsonlSessionLog', anchor, logs],
        ['LogWriter', parts.writer, logs.map((log) => partsOfLog(log).writer)],
        ['LogLines', parts.writer.lines, logs.map((log) => partsOfLog(log).writer.lines)],
        ['LogProblems', parts.problems, logs.map((log) => partsOfLog(log).problems)],
        ['SessionLock', parts.lock, logs.map((log) => partsOfLog(log).lock)],
        ['JournalSeat', parts.writer.seat ?? {}, seats],
      ]);
    } finally {
      await store.dispose();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
