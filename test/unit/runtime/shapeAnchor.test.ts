import * as assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import * as z from 'zod';
import { Runtime, type RuntimeTool } from '../../../src/core';
import { Agent } from '../../../src/core/agents/agent';
import { StreamRead, TurnAbort } from '../../../src/core/agents/turnAbort';
import { TurnLoop } from '../../../src/core/agents/turnLoop';
import { RunawayDetector } from '../../../src/core/budgets/runaway';
import { ScriptedModel } from '../../../src/core/models/scriptedModel';
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

describe('shape anchors', () => {
  it("each anchor has the hidden class of the real objects of a fan-out, so the fan-out's optimized code outlives its last agent", async () => {
    const seen = { loops: [] as object[], aborts: [] as object[], reads: [] as object[], detectors: [] as object[] };
    const restore = [
      instancesOf(TurnLoop.prototype.constructor as typeof TurnLoop, 'run', seen.loops),
      instancesOf(TurnAbort, 'end', seen.aborts),
      instancesOf(StreamRead, 'pull', seen.reads),
      instancesOf(RunawayDetector, 'toolCalled', seen.detectors),
    ];
    const agents: Agent[] = [];
    try {
      const usage = { inputTokens: 1, outputTokens: 1 };
      const model = new ScriptedModel({
        version: 1,
        agents: {
          root: { turns: [[{ toolCalls: [0, 1, 2].map((i) => ({ name: 'delegate_task', arguments: { label: 'worker', prompt: `task ${i}` } })), usage }, { text: 'all done', usage }]] },
          worker: { turns: [[{ toolCalls: [{ name: 'noop', arguments: {} }], usage }, { toolCalls: [{ name: 'noop', arguments: {} }], usage }, { text: 'done', usage }]] },
        },
      });
      const noop: RuntimeTool = { name: 'noop', description: 'does nothing', schema: () => z.object({}), readOnly: true, run: () => ({ content: 'ok' }) };
      const runtime = new Runtime({ model, tools: [noop] });
      runtime.onEvent((e) => void (e.type === 'agent_added' && agents.push(e.agent)));
      const root = runtime.startRoot({ prompt: 'fan out', label: 'root' });
      await root.whenIdle();
      assert.equal(root.lastTurnEnd?.reason, 'completed');
      await runtime.dispose();
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
    for (const [name, anchor, real] of checks) {
      assert.ok(real.length > 0, `no ${name} was made`);
      real.forEach((object, i) => assert.ok(haveSameMap(anchor, object), `${name} ${i} has another hidden class than its anchor`));
    }
  });
});
