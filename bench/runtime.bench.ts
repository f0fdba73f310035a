/*
 * Runtime benchmarks: figures, not assertions. Run with `npm run bench:runtime`
 * (node --expose-gc so heap figures are taken after a full collection).
 *
 *  1. Fan-out: a root delegates to K one-shot children (K = 100, 1000), each making 3 model
 *     calls on the zero-latency scripted model. Wall time, runtime overhead per model call
 *     (against the same number of bare scripted-model calls measured in the same run), peak heap;
 *     K = 1000 again with every session written to a JSONL store, as the editor runs it.
 *  2. Interrupt latency: a continuable child hanging in a model call is interrupted 200 times:
 *     interrupt() -> the model observes the abort, and -> the turn end is recorded. A sibling
 *     and the parent keep running throughout.
 *  3. Idle agents: heap per live idle (stopped) continuable agent, with 1000 alive.
 *  4. Streaming memory: heap retained per streamed chunk while a turn is still running, for
 *     100,000 and 1,000,000 chunks (flat means nothing per chunk is kept beyond the reply's text).
 *  5. Turn overhead: one agent, many one-call turns on the scripted model; the runtime's cost
 *     per turn over the same model calls made bare (timed in alternating blocks), and GC time.
 *  6. Durable overhead: the K = 1000 fan-out with JSONL sessions against in memory, in
 *     alternating rounds (the median of the pairs' ratios, in one run), timed until the root is
 *     idle (PASS/FAIL against 1.5x) and until every session is also on disk; after each durable
 *     round every session is read back from its file and must be whole. Also what the disk
 *     charges for creating that many files, and Stop during a fan-out until everything settled,
 *     in memory and durable. `durable` (or ARBOR_BENCH_ONLY=durable) runs only this.
 */
import * as fs from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import * as os from 'node:os';
import * as path from 'node:path';
import * as z from 'zod';
import type { Agent } from '../src/core/agents/agent';
import { ScriptedModel } from '../src/core/models/scriptedModel';
import type { ModelChunk, ModelProvider, ModelRequest } from '../src/core/models/types';
import { Runtime, type RuntimeTool } from '../src/core/runtime';
import { JsonlSessionStore } from '../src/core/sessions';

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const heap = (): number => (gc(), process.memoryUsage().heapUsed);
const ms = (ns: bigint): number => Number(ns) / 1e6;
const us = (ns: bigint): number => Number(ns) / 1e3;

function stats(values: number[]): { median: number; p99: number; min: number; max: number } {
  const s = [...values].sort((a, b) => a - b);
  const at = (q: number): number => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: at(0.5), p99: at(0.99), min: s[0], max: s[s.length - 1] };
}

const noArgs = z.object({});
const noop: RuntimeTool = { name: 'noop', description: 'does nothing', schema: () => noArgs, readOnly: true, run: () => ({ content: 'ok' }) };

function fanOutScript(k: number): unknown {
  const calls = Array.from({ length: k }, (_, i) => ({ name: 'delegate_task', arguments: { label: 'worker', prompt: `task ${i}` } }));
  return {
    version: 1,
    agents: {
      root: { turns: [[{ toolCalls: calls, usage: { inputTokens: 1, outputTokens: 1 } }, { text: 'all done', usage: { inputTokens: 1, outputTokens: 1 } }]] },
      worker: {
        turns: [
          [
            { toolCalls: [{ name: 'noop', arguments: {} }], usage: { inputTokens: 1, outputTokens: 1 } },
            { toolCalls: [{ name: 'noop', arguments: {} }], usage: { inputTokens: 1, outputTokens: 1 } },
            { text: 'done', usage: { inputTokens: 1, outputTokens: 1 } },
          ],
        ],
      },
    },
  };
}

/** The same number of model calls straight on the scripted model: the baseline. */
async function bareModelCalls(model: ScriptedModel, calls: number): Promise<bigint> {
  const controller = new AbortController();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) {
    const req: ModelRequest = {
      agentId: 'w',
      agentLabel: 'worker',
      call: 1,
      turn: 1,
      step: (i % 3) + 1,
      system: '',
      messages: [{ role: 'user', content: 'task' }],
      tools: [],
      signal: controller.signal,
    };
    for await (const _ of model.stream(req)) void _;
  }
  return process.hrtime.bigint() - t0;
}

interface FanOutRound {
  wall: number;
  /** Until every session is also written (durable; the same as `wall` in memory). */
  written: number;
  /** Runtime overhead per model call against bare model calls made right after (µs). */
  overhead: number;
  /** Heap growth seen while it ran (bytes). */
  heapGrowth: number;
  /** CPU time of the process while it ran (ms, user and system, every thread). */
  cpu: number;
}

/**
 * Session folders are removed when the process exits, not after each round: on a disk that
 * discards freed blocks (ext4 mounted with `discard`, as on the benchmark machine) deleting a
 * thousand files makes the files created in the next seconds several times slower, and each
 * durable round would pay for the cleanup of the round before.
 */
const leftFolders: string[] = [];
function leaveUntilExit(dir: string): void {
  if (leftFolders.length === 0) process.on('exit', () => leftFolders.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
  leftFolders.push(dir);
}

async function fanOutRound(k: number, durable: boolean): Promise<FanOutRound> {
  const model = new ScriptedModel(fanOutScript(k));
  const dir = durable ? fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-bench-')) : undefined;
  const store = dir ? new JsonlSessionStore(dir) : undefined;
  const runtime = new Runtime({ model, tools: [noop], limits: { maxLiveChildren: k, maxTurns: 10 }, sessions: store });
  const before = heap();
  let sampled = 0;
  const sampler = setInterval(() => (sampled = Math.max(sampled, process.memoryUsage().heapUsed)), 1);
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const root = runtime.startRoot({ prompt: 'fan out', label: 'root' });
  await root.whenIdle();
  const wall = process.hrtime.bigint() - t0;
  const cpu = process.cpuUsage(c0);
  clearInterval(sampler);
  sampled = Math.max(sampled, process.memoryUsage().heapUsed);
  if (store) await store.flushAll();
  const written = process.hrtime.bigint() - t0;
  if (root.lastTurnEnd?.reason !== 'completed') throw new Error(`fan-out did not complete: ${JSON.stringify(root.lastTurnEnd)}`);
  const modelCalls = k * 3 + 2;
  const base = await bareModelCalls(new ScriptedModel(fanOutScript(k)), modelCalls);
  await runtime.dispose();
  if (store && dir) {
    await store.dispose();
    await checkWritten(dir, k);
    leaveUntilExit(dir);
  }
  return { wall: ms(wall), written: ms(written), overhead: (us(wall) - us(base)) / modelCalls, heapGrowth: sampled - before, cpu: (cpu.user + cpu.system) / 1000 };
}

/** Every session of a durable fan-out, read back from its file by another store: all there, whole, and ended. */
async function checkWritten(dir: string, k: number): Promise<void> {
  const reader = new JsonlSessionStore(dir);
  const { sessions, diagnostics } = await reader.listSessions();
  const incomplete = sessions.filter((s) => s.damage || s.summary.lastTurnEndReason !== 'completed');
  if (diagnostics.length > 0 || sessions.length !== k + 1 || incomplete.length > 0) {
    throw new Error(`durable fan-out: ${sessions.length} of ${k + 1} sessions on disk, ${incomplete.length} incomplete, ${diagnostics.length} unreadable`);
  }
  const child = sessions.find((s) => s.header.kind === 'one-shot')!;
  const loaded = await reader.loadSession(child.header.id);
  if (loaded.events.length !== 12) throw new Error(`durable fan-out: a child's session holds ${loaded.events.length} events, not 12`);
  await reader.dispose();
}

function reportFanOut(k: number, durable: boolean, rounds: readonly FanOutRound[]): number {
  const w = stats(rounds.map((r) => r.wall));
  const o = stats(rounds.map((r) => r.overhead));
  const peak = Math.max(...rounds.map((r) => r.heapGrowth));
  console.log(
    `fan-out K=${k}${durable ? ' (durable JSONL sessions)' : ''}: wall median ${w.median.toFixed(1)} ms (min ${w.min.toFixed(1)}, max ${w.max.toFixed(1)}); ` +
      `runtime overhead per model call median ${o.median.toFixed(1)} µs (min ${o.min.toFixed(1)}, max ${o.max.toFixed(1)}); ` +
      `peak heap growth ${(peak / 1048576).toFixed(1)} MiB over ${rounds.length} rounds`,
  );
  return w.median;
}

async function fanOut(k: number, durable = false): Promise<number> {
  const rounds: FanOutRound[] = [];
  for (let r = 0; r < 5; r++) rounds.push(await fanOutRound(k, durable));
  return reportFanOut(k, durable, rounds);
}

/**
 * The K-child fan-out in memory and with JSONL sessions, in alternating rounds so that a change
 * of load on a shared machine hits both alike: the ratio of each pair, and their median.
 */
async function durableAgainstMemory(k: number, pairs: number): Promise<void> {
  await fanOutRound(k, false); // warm-up of both paths
  await fanOutRound(k, true);
  const memory: FanOutRound[] = [];
  const durable: FanOutRound[] = [];
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  for (let r = 0; r < pairs; r++) {
    const m = await fanOutRound(k, false);
    const d = await fanOutRound(k, true);
    memory.push(m);
    durable.push(d);
    ratios.push(d.wall / m.wall);
    cpuRatios.push(d.cpu / m.cpu);
  }
  const memoryWall = reportFanOut(k, false, memory);
  const durableWall = reportFanOut(k, true, durable);
  const q = stats(ratios);
  console.log(
    `fan-out K=${k}: durable JSONL / in-memory wall time until the root is idle = ${q.median.toFixed(2)}x, the median of ${pairs} alternating pairs (pairs ${q.min.toFixed(2)}x to ${q.max.toFixed(2)}x; ` +
      `ratio of the medians ${(durableWall / memoryWall).toFixed(2)}x); target <= 1.5x: ${q.median <= 1.5 ? 'PASS' : 'FAIL'}`,
  );
  // The files are written in the background while the agents run and after: until the last
  // one is on disk the durable run also pays what the disk charges per file (the disk baseline below).
  const w = stats(durable.map((d, i) => d.written / memory[i].wall));
  console.log(
    `fan-out K=${k}: durable JSONL until every session is on disk / in-memory = ${w.median.toFixed(2)}x, the median of the same ${pairs} pairs (pairs ${w.min.toFixed(2)}x to ${w.max.toFixed(2)}x; ` +
      `durable median ${stats(durable.map((d) => d.written)).median.toFixed(0)} ms); every session read back whole after each round`,
  );
  // CPU time moves less than wall time when other processes load the machine.
  const c = stats(cpuRatios);
  console.log(
    `fan-out K=${k}: durable JSONL / in-memory CPU time while it ran = ${c.median.toFixed(2)}x, the median of the same ${pairs} pairs (pairs ${c.min.toFixed(2)}x to ${c.max.toFixed(2)}x; ` +
      `in memory median ${stats(memory.map((r) => r.cpu)).median.toFixed(0)} ms, durable ${stats(durable.map((r) => r.cpu)).median.toFixed(0)} ms)`,
  );
}

/** What the disk charges for creating that many small files (a durable fan-out creates one session file per agent). */
async function fileCreationBaseline(files: number): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-bench-files-'));
  const t0 = process.hrtime.bigint();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files) {
      const handle = await fs.promises.open(path.join(dir, `f${next++}`), 'wx');
      await handle.writeFile('{"type":"header"}\n');
      await handle.close();
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  const wall = ms(process.hrtime.bigint() - t0);
  leaveUntilExit(dir);
  return wall;
}

/**
 * Stop during a fan-out: K one-shot children hang in a model call; Stop on the root aborts
 * them all; time from stop() until the root is idle and every child is gone, with sessions in
 * memory and in a JSONL store (the ratio in the same run).
 */
async function stopSettle(k: number): Promise<void> {
  const flushedAfter: number[] = [];
  const cpuRatios: number[] = [];
  let lastCpu = 0;
  const once = async (durable: boolean): Promise<number> => {
    const calls = Array.from({ length: k }, (_, i) => ({ name: 'delegate_task', arguments: { label: 'worker', prompt: `task ${i}` } }));
    const model = new ScriptedModel({ version: 1, agents: { root: { turns: [[{ toolCalls: calls }, { text: 'stopped' }]] }, worker: { turns: [[{ hang: true }]] } } });
    const dir = durable ? fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-bench-stop-')) : undefined;
    const store = dir ? new JsonlSessionStore(dir) : undefined;
    const runtime = new Runtime({ model, limits: { maxLiveChildren: k }, sessions: store });
    const root = runtime.startRoot({ prompt: 'fan out', label: 'root' });
    while (runtime.agents.all().length < k + 1) await new Promise((r) => setImmediate(r));
    await new Promise((r) => setTimeout(r, 20));
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    runtime.stop(root);
    await root.whenIdle();
    while (runtime.agents.all().length > 1) await new Promise((r) => setImmediate(r));
    const settled = ms(process.hrtime.bigint() - t0);
    const cpu = process.cpuUsage(c0);
    lastCpu = (cpu.user + cpu.system) / 1000;
    if (store) await store.flushAll();
    flushedAfter.push(ms(process.hrtime.bigint() - t0));
    await runtime.dispose();
    if (store && dir) {
      await store.dispose();
      leaveUntilExit(dir);
    }
    return settled;
  };
  const memory: number[] = [];
  const durable: number[] = [];
  const ratios: number[] = [];
  for (let r = 0; r < 7; r++) {
    memory.push(await once(false));
    const memoryCpu = lastCpu;
    durable.push(await once(true));
    ratios.push(durable[r] / memory[r]);
    cpuRatios.push(lastCpu / memoryCpu);
  }
  const m = stats(memory).median;
  const d = stats(durable).median;
  const q = stats(ratios);
  const durableFlushed = stats(flushedAfter.filter((_, i) => i % 2 === 1)).median;
  console.log(
    `Stop during a K=${k} fan-out, until the root is idle and every child gone: in memory median ${m.toFixed(1)} ms, durable JSONL median ${d.toFixed(1)} ms; ` +
      `ratio ${q.median.toFixed(2)}x, the median of ${ratios.length} alternating pairs (pairs ${q.min.toFixed(2)}x to ${q.max.toFixed(2)}x); ` +
      `durable until every session is also on disk: median ${durableFlushed.toFixed(1)} ms; CPU time until settled, durable / in memory: median ${stats(cpuRatios).median.toFixed(2)}x ` +
      `(pairs ${stats(cpuRatios).min.toFixed(2)}x to ${stats(cpuRatios).max.toFixed(2)}x)`,
  );
}

async function interruptLatency(): Promise<void> {
  let observedAt = 0n;
  const model = new ScriptedModel(
    {
      version: 1,
      agents: {
        root: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'target', prompt: 'hang' } }, { name: 'start_subagent', arguments: { label: 'sibling', prompt: 'hang' } }] }, { hang: true }]] },
        target: { turns: [[{ hang: true }]], afterLastTurn: 'repeat-last' },
        sibling: { turns: [[{ hang: true }]] },
      },
    },
    { onAbortObserved: (r) => (r.agentLabel === 'target' ? (observedAt = process.hrtime.bigint()) : undefined) },
  );
  const runtime = new Runtime({ model });
  const root = runtime.startRoot({ prompt: 'go', label: 'root' });
  const find = (label: string): Agent | undefined => runtime.agents.all().find((a) => a.label === label);
  while (!find('target') || !find('sibling')) await new Promise((r) => setImmediate(r));
  const target = find('target')!;
  const sibling = find('sibling')!;
  let endedAt = 0n;
  runtime.onEvent((e) => {
    if (e.type === 'agent_changed' && e.agent === target && e.change.type === 'turn_end') endedAt = process.hrtime.bigint();
  });
  const toObserved: number[] = [];
  const toEnd: number[] = [];
  for (let i = 0; i < 200; i++) {
    if (i > 0) await runtime.subagents.deliver(root, target.id, `again ${i}`);
    while (target.status !== 'running') await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r)); // let the model call reach its hang
    observedAt = 0n;
    endedAt = 0n;
    const t0 = process.hrtime.bigint();
    runtime.subagents.interrupt(target.id, { kind: 'user', parentSessionId: root.id });
    const returned = process.hrtime.bigint();
    if (observedAt === 0n) throw new Error('the model did not see the abort inside interrupt()');
    await target.whenIdle();
    toObserved.push(us(observedAt - t0));
    toEnd.push(us(endedAt - t0));
    void returned;
  }
  const stillRunning = sibling.status === 'running' && root.status === 'running';
  const a = stats(toObserved);
  const b = stats(toEnd);
  console.log(
    `interrupt x200: interrupt() -> model sees abort: median ${a.median.toFixed(1)} µs, p99 ${a.p99.toFixed(1)} µs (min ${a.min.toFixed(1)}, max ${a.max.toFixed(1)}); ` +
      `-> turn end recorded: median ${b.median.toFixed(1)} µs, p99 ${b.p99.toFixed(1)} µs; parent and sibling still running: ${stillRunning}`,
  );
  await runtime.dispose();
}

async function idleAgents(n: number): Promise<void> {
  const model = new ScriptedModel({ version: 1, agents: { root: { turns: [[{ text: 'ready' }]] }, idle: { turns: [[{ hang: true }]] } } });
  const runtime = new Runtime({ model, limits: { maxLiveChildren: n + 1 } });
  const root = runtime.startRoot({ prompt: 'go', label: 'root' });
  await root.whenIdle();
  const before = heap();
  const kids: Agent[] = [];
  for (let i = 0; i < n; i++) kids.push(runtime.startContinuable(root, 'idle', `wait ${i}`));
  await new Promise((r) => setImmediate(r));
  // A Stop leaves each child idle and alive (stopped children do not settle).
  for (const kid of kids) runtime.stop(kid);
  await Promise.all(kids.map((k) => k.whenIdle()));
  await new Promise((r) => setTimeout(r, 10));
  const live = kids.filter((k) => runtime.agents.isLive(k) && k.status === 'idle').length;
  const after = heap();
  console.log(`idle agents: ${live} live idle continuable agents, ${((after - before) / n / 1024).toFixed(2)} KiB of heap each (log, conversation, activation included)`);
  await runtime.dispose();
}

/** A model that streams `n` text chunks, then waits like a server that went quiet. */
function manyChunks(n: number, text: string, reached: () => void): ModelProvider {
  return {
    id: 'many',
    label: 'many chunks',
    async *stream(request: ModelRequest): AsyncGenerator<ModelChunk> {
      for (let i = 0; i < n; i++) yield { type: 'text', text };
      reached();
      await new Promise<never>((_, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true }));
    },
  };
}

async function streamingMemory(n: number, text: string): Promise<void> {
  let waiting = false;
  const runtime = new Runtime({ model: manyChunks(n, text, () => (waiting = true)) });
  const before = heap();
  const agent = runtime.startRoot({ prompt: 'stream', label: 'main' });
  while (!waiting) await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  const during = heap();
  runtime.stop(agent);
  await agent.whenIdle();
  const perChunk = (during - before) / n;
  console.log(
    `streaming memory: ${n} chunks of ${text === '' ? 'empty text' : `${text.length}-char text`} still in one running turn: ` +
      `${perChunk.toFixed(1)} bytes retained per chunk (${((during - before) / 1048576).toFixed(2)} MiB in all${text ? ', the reply text included' : ''})`,
  );
  await runtime.dispose();
}

/** GC time (ms) spent while `work` runs. */
async function withGcTime<T>(work: () => Promise<T>): Promise<{ value: T; gcMs: number }> {
  let gcMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcMs += entry.duration;
  });
  observer.observe({ entryTypes: ['gc'] });
  const value = await work();
  await new Promise((r) => setTimeout(r, 50)); // gc entries reach the observer on a later tick
  observer.disconnect();
  return { value, gcMs };
}

const turnScript = { version: 1, agents: { main: { turns: [[{ text: 'ok', usage: { inputTokens: 1, outputTokens: 1 } }]], afterLastTurn: 'repeat-last' } } } as const;

/**
 * Turns and bare model calls are timed in alternating blocks, so that a change of load on a
 * shared machine hits both alike; the figure is the median over blocks of the difference.
 */
async function turnOverhead(turns: number, block = 500): Promise<void> {
  const runtime = new Runtime({ model: new ScriptedModel(turnScript), limits: { maxTurns: turns + 1 } });
  const agent = runtime.startRoot({ prompt: 'turn 0', label: 'main' });
  await agent.whenIdle();
  const model = new ScriptedModel(turnScript);
  const controller = new AbortController();
  const messages = [{ role: 'user' as const, content: 'again' }];
  const perTurn: number[] = [];
  const bare: number[] = [];
  gc();
  const { gcMs } = await withGcTime(async () => {
    for (let done = 0; done < turns; done += block) {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < block; i++) {
        runtime.sendFromUser(agent, 'again');
        await agent.whenIdle();
      }
      const t1 = process.hrtime.bigint();
      for (let i = 1; i <= block; i++) {
        const req: ModelRequest = { agentId: 'm', agentLabel: 'main', call: i, turn: i, step: 1, system: 'You are Arbor.', messages, tools: [], signal: controller.signal };
        for await (const _ of model.stream(req)) void _;
      }
      const t2 = process.hrtime.bigint();
      bare.push(us(t2 - t1) / block);
      perTurn.push((us(t1 - t0) - us(t2 - t1)) / block);
    }
  });
  if (agent.lastTurnEnd?.reason !== 'completed') throw new Error(`turns did not complete: ${JSON.stringify(agent.lastTurnEnd)}`);
  await runtime.dispose();
  const o = stats(perTurn);
  const b = stats(bare);
  console.log(
    `turn overhead x${turns}: runtime cost per one-call turn over a bare model call median ${o.median.toFixed(1)} µs (min ${o.min.toFixed(1)}, max ${o.max.toFixed(1)} over blocks of ${block}); ` +
      `bare model call ${b.median.toFixed(1)} µs; GC about ${((gcMs * 1000) / turns).toFixed(1)} µs per turn (both sides); target < 15 µs`,
  );
}

/** `npm run bench -- <word>` (or node ... runtime.bench.ts <word>) runs only the sections whose name has it. */
const only = process.argv.slice(2);
const wanted = (name: string): boolean => only.length === 0 || only.some((w) => name.includes(w));

async function main(): Promise<void> {
  if (process.env.ARBOR_BENCH_ONLY === 'durable') {
    await durableAgainstMemory(1000, 9);
    console.log(`disk baseline: creating 1,000 small files (16 at a time) takes ${(await fileCreationBaseline(1000)).toFixed(0)} ms here`);
    await stopSettle(1000);
    return;
  }
  console.log(`node ${process.version}, ${process.platform}/${process.arch}, gc exposed: ${typeof (globalThis as { gc?: unknown }).gc === 'function'}`);
  if (wanted('fan-out')) {
    await fanOut(100); // also warms up the JIT
    await fanOut(100);
  }
  if (wanted('fan-out') || wanted('durable')) {
    await durableAgainstMemory(1000, 9);
    console.log(`disk baseline: creating 1,000 small files (16 at a time) takes ${(await fileCreationBaseline(1000)).toFixed(0)} ms here`);
    await stopSettle(1000);
  }
  if (wanted('interrupt')) await interruptLatency();
  if (wanted('idle')) await idleAgents(1000);
  if (wanted('streaming')) {
    await streamingMemory(100_000, '');
    await streamingMemory(1_000_000, '');
    await streamingMemory(100_000, 'x');
  }
  if (wanted('turn')) {
    await turnOverhead(5_000); // warm-up
    await turnOverhead(50_000);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
