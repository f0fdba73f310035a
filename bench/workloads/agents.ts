/**
 * What one agent costs at rest, how fast an abort reaches it, and what a turn costs, on the
 * scripted model with sessions in memory:
 *
 *  - `idleAgentBytes`: heap per live idle agent (W3): N roots, each after one completed
 *    one-call turn, waiting for the next message (conversation, session log, run included).
 *  - `pausedAgentBytes`: heap per paused agent: N continuable subagents stopped in the middle of
 *    a model call, alive with their work kept and their queue parked, which is what a Stop, a
 *    spent budget and a runaway guard each leave an agent as.
 *    Both: the heap after full collections, with the N agents live, minus the heap before, / N,
 *    after N agents of the kind were made first (and kept) so that what is built once is not
 *    counted: V8 compiles and optimizes the code of a path only once it has run many times, and
 *    measured after a single agent the first N carried about 200-650 bytes each of that code
 *    (code space and feedback, none of it per agent), more in one run than in the next.
 *  - `abortToModelUs` / `abortToSettledUs`: a continuable subagent hanging in a model call is
 *    interrupted 200 times: from interrupt() until the model observes the abort, and until the
 *    agent settled (its whenIdle() resolved, the turn's end recorded); the medians.
 *  - `turnOverheadUs`: one agent, one-call turns on the scripted model, and the same calls made
 *    bare, in alternating blocks: the median over blocks of the runtime's cost per turn, in wall
 *    time, and in CPU time (`turnOverheadCpuUs`), which a busy machine moves less.
 */
import type { Agent, Core, ModelRequest } from './core';
import { cpuUs, heapUsed, median, now, tick, until, us } from './measure';

const AGENTS = 1000;

async function idleAgentBytes(core: Core, n: number): Promise<number> {
  const model = new core.ScriptedModel({ version: 1, agents: { idle: { turns: [[{ text: 'ready', usage: { inputTokens: 1, outputTokens: 1 } }]] } } });
  const runtime = new core.Runtime({ model });
  const warm = Array.from({ length: n }, (_, i) => runtime.startRoot({ prompt: `warm up ${i}`, label: 'idle' }));
  await Promise.all(warm.map((a) => a.whenIdle()));
  await tick();
  const before = heapUsed();
  const agents: Agent[] = [];
  for (let i = 0; i < n; i++) agents.push(runtime.startRoot({ prompt: `wait for me ${i}`, label: 'idle' }));
  await Promise.all(agents.map((a) => a.whenIdle()));
  await tick();
  const after = heapUsed();
  const live = agents.filter((a) => runtime.agents.isLive(a) && a.status === 'idle' && a.lastTurnEnd?.reason === 'completed').length;
  if (live !== n) throw new Error(`idle agents: ${live} of ${n} live and idle after a completed turn`);
  await runtime.dispose();
  return (after - before) / n;
}

async function pausedAgentBytes(core: Core, n: number): Promise<number> {
  const model = new core.ScriptedModel({ version: 1, agents: { root: { turns: [[{ text: 'ready' }]] }, paused: { turns: [[{ hang: true }]] } } });
  const runtime = new core.Runtime({ model, limits: { maxLiveChildren: 2 * n + 2 } });
  const root = runtime.startRoot({ prompt: 'go', label: 'root' });
  await root.whenIdle();
  const stopAll = async (agents: Agent[]): Promise<void> => {
    await tick();
    for (const agent of agents) runtime.stop(agent);
    await Promise.all(agents.map((a) => a.whenIdle()));
    await tick();
  };
  const warm = Array.from({ length: n }, (_, i) => runtime.startContinuable(root, 'paused', `warm up ${i}`));
  await stopAll(warm);
  const before = heapUsed();
  const agents: Agent[] = [];
  for (let i = 0; i < n; i++) agents.push(runtime.startContinuable(root, 'paused', `wait ${i}`));
  await stopAll(agents);
  const after = heapUsed();
  const live = agents.filter((a) => runtime.agents.isLive(a) && a.status === 'idle' && a.lastTurnEnd?.reason === 'aborted').length;
  if (live !== n) throw new Error(`paused agents: ${live} of ${n} live and stopped`);
  await runtime.dispose();
  return (after - before) / n;
}

async function abortLatency(core: Core, times: number): Promise<{ toModel: number; toSettled: number }> {
  let observedAt = 0n;
  const model = new core.ScriptedModel(
    {
      version: 1,
      agents: {
        root: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'target', prompt: 'hang' } }, { name: 'start_subagent', arguments: { label: 'sibling', prompt: 'hang' } }] }, { hang: true }]] },
        target: { turns: [[{ hang: true }]], afterLastTurn: 'repeat-last' },
        sibling: { turns: [[{ hang: true }]] },
      },
    },
    { onAbortObserved: (r) => (r.agentLabel === 'target' ? (observedAt = now()) : undefined) },
  );
  const runtime = new core.Runtime({ model });
  const root = runtime.startRoot({ prompt: 'go', label: 'root' });
  const find = (label: string): Agent | undefined => runtime.agents.all().find((a) => a.label === label);
  await until(() => find('target') !== undefined && find('sibling') !== undefined, 'the subagents to start');
  const target = find('target')!;
  const sibling = find('sibling')!;
  const toModel: number[] = [];
  const toSettled: number[] = [];
  for (let i = 0; i < times; i++) {
    if (i > 0) await runtime.subagents.deliver(root, target.id, `again ${i}`);
    await until(() => target.status === 'running', 'the target to run');
    await tick(); // let the model call reach its hang
    observedAt = 0n;
    const t0 = now();
    runtime.subagents.interrupt(target.id, { kind: 'user', parentSessionId: root.id });
    await target.whenIdle();
    const settled = now();
    if (observedAt === 0n) throw new Error('the model did not see the abort');
    toModel.push(us(observedAt - t0));
    toSettled.push(us(settled - t0));
  }
  if (sibling.status !== 'running' || root.status !== 'running') throw new Error('an interrupt reached the parent or the sibling');
  await runtime.dispose();
  return { toModel: median(toModel), toSettled: median(toSettled) };
}

async function turnOverhead(core: Core, turns: number, block = 500): Promise<{ wall: number; cpu: number }> {
  const script = { version: 1, agents: { main: { turns: [[{ text: 'ok', usage: { inputTokens: 1, outputTokens: 1 } }]], afterLastTurn: 'repeat-last' } } };
  const runtime = new core.Runtime({ model: new core.ScriptedModel(script), limits: { maxTurns: turns + 1 } });
  const agent = runtime.startRoot({ prompt: 'turn 0', label: 'main' });
  await agent.whenIdle();
  const model = new core.ScriptedModel(script);
  const signal = new AbortController().signal;
  const messages = [{ role: 'user' as const, content: 'again' }];
  const perTurn: number[] = [];
  const perTurnCpu: number[] = [];
  heapUsed();
  for (let done = 0; done < turns; done += block) {
    const c0 = process.cpuUsage();
    const t0 = now();
    for (let i = 0; i < block; i++) {
      runtime.sendFromUser(agent, 'again');
      await agent.whenIdle();
    }
    const t1 = now();
    const c1 = process.cpuUsage();
    for (let i = 1; i <= block; i++) {
      const request: ModelRequest = { agentId: 'm', agentLabel: 'main', call: i, turn: i, step: 1, system: 'You are Arbor.', messages, tools: [], signal };
      for await (const _ of model.stream(request)) void _;
    }
    const t2 = now();
    const c2 = process.cpuUsage();
    perTurn.push((us(t1 - t0) - us(t2 - t1)) / block);
    perTurnCpu.push((cpuUs(c0, c1) - cpuUs(c1, c2)) / block);
  }
  if (agent.lastTurnEnd?.reason !== 'completed') throw new Error(`turns did not complete: ${JSON.stringify(agent.lastTurnEnd)}`);
  await runtime.dispose();
  return { wall: median(perTurn), cpu: median(perTurnCpu) };
}

export async function agents(core: Core): Promise<Record<string, number>> {
  // The heap first, in a process that has run nothing else yet.
  const idleAgent = await idleAgentBytes(core, AGENTS);
  const pausedAgent = await pausedAgentBytes(core, AGENTS);
  await abortLatency(core, 50); // warm-up
  const abort = await abortLatency(core, 200);
  await turnOverhead(core, 5_000); // warm-up
  const turn = await turnOverhead(core, 20_000);
  return { idleAgentBytes: idleAgent, pausedAgentBytes: pausedAgent, abortToModelUs: abort.toModel, abortToSettledUs: abort.toSettled, turnOverheadUs: turn.wall, turnOverheadCpuUs: turn.cpu };
}
