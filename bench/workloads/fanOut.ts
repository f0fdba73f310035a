/**
 * W1, the fan-out: a root delegates to K = 1,000 one-shot subagents, each making 3 model calls
 * (two tool calls, then its answer) on the zero-latency scripted model, K * 3 + 2 calls in all.
 *
 *  - `fanOut`: in memory, wall time until the root is idle, and the runtime's overhead per model
 *    call: that wall time minus the same number of bare scripted-model calls made right after
 *    in the same process, divided by the calls. Creating and ending each subagent is in it.
 *    Also the process's CPU time until the root is idle, which a busy machine moves less.
 *  - `durable`: the same fan-out with every session in a JSONL store against in memory, in
 *    alternating rounds: the durable time until every session is on disk (the store's
 *    flushAll() resolved) over the in-memory wall time, the median of the rounds' ratios; after
 *    the last durable round every session is read back by another store and must be whole.
 *    Beside it, what the disk alone charges: the in-memory wall time plus creating K + 1 small
 *    files the way the store creates them (exclusive open, one write, close; 16 at a time, in a
 *    fresh folder beside the store's), over the in-memory wall time. That floor is what any
 *    store with one file per session pays on this disk in this workload, where the zero-latency
 *    fan-out runs in one stretch of the event loop and no file operation can overlap it.
 *    And a window's second fan-out: two durable fan-outs into one store, the second started once
 *    the first's one-shot sessions are being filed in files of their own (the first such file
 *    is in the folder), as in a window that delegates again at once: the second's time until
 *    every session is on disk over the in-memory wall time.
 *    No folder is removed while anything is measured: on a disk that discards freed blocks
 *    (ext4 mounted with `discard`, as on the benchmark machine) deleting a thousand files slows
 *    every file created in the next seconds several times over, so each round would pay for the
 *    cleanup of the round before, which no sessions folder does. The folders go into one scratch
 *    folder (ARBOR_BENCH_SCRATCH, which bench/compare.mjs makes and removes after its last run;
 *    else one made here and removed when the workload is done).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Core, ModelRequest, Runtime, RuntimeTool, ScriptedModel } from './core';
import { cpuMs, heapUsed, median, ms, now, us } from './measure';

const K = 1000;

/** Where the durable rounds' folders go; nothing in it is removed until the measuring is over. */
function scratchFolder(): { root: string; remove: () => void } {
  const given = process.env.ARBOR_BENCH_SCRATCH;
  if (given) {
    fs.mkdirSync(given, { recursive: true });
    return { root: given, remove: () => undefined };
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-compare-'));
  return { root, remove: () => fs.rmSync(root, { recursive: true, force: true }) };
}

function fanOutScript(k: number): unknown {
  const calls = Array.from({ length: k }, (_, i) => ({ name: 'delegate_task', arguments: { label: 'worker', prompt: `task ${i}` } }));
  const usage = { inputTokens: 1, outputTokens: 1 };
  return {
    version: 1,
    agents: {
      root: { turns: [[{ toolCalls: calls, usage }, { text: 'all done', usage }]] },
      worker: {
        turns: [
          [
            { toolCalls: [{ name: 'noop', arguments: {} }], usage },
            { toolCalls: [{ name: 'noop', arguments: {} }], usage },
            { text: 'done', usage },
          ],
        ],
      },
    },
  };
}

function noopTool(core: Core): RuntimeTool {
  return { name: 'noop', description: 'does nothing', schema: core.toolSchema(core.z.object({})), readOnly: true, run: () => ({ content: 'ok' }) };
}

/** The same number of model calls straight on the scripted model, as the workers make them. */
async function bareModelCalls(model: ScriptedModel, calls: number): Promise<bigint> {
  const signal = new AbortController().signal;
  const t0 = now();
  for (let i = 0; i < calls; i++) {
    const request: ModelRequest = { agentId: 'w', agentLabel: 'worker', call: 1, turn: 1, step: (i % 3) + 1, system: '', messages: [{ role: 'user', content: 'task' }], tools: [], signal };
    for await (const _ of model.stream(request)) void _;
  }
  return now() - t0;
}

interface Round {
  /** Until the root is idle (ms). */
  wall: number;
  /** Until every session is also on disk (ms; the same as `wall` in memory). */
  written: number;
  /** Runtime overhead per model call against bare model calls (µs). */
  overhead: number;
  /** CPU time of the process until the root is idle (ms; steadier than wall time on a busy machine). */
  cpu: number;
}

async function round(core: Core, k: number, scratch: string | undefined, check = false, collect = true): Promise<Round> {
  const model = new core.ScriptedModel(fanOutScript(k));
  const dir = scratch === undefined ? undefined : fs.mkdtempSync(path.join(scratch, 'store-'));
  const store = dir ? new core.JsonlSessionStore(dir) : undefined;
  const runtime = new core.Runtime({ model, tools: [noopTool(core)], limits: { maxLiveChildren: k, maxTurns: 10 }, sessions: store });
  // No collection of an earlier round's garbage inside this one. A forced full collection with
  // nothing of a fan-out alive also discards V8's optimized code of the fan-out's path (the maps
  // it embeds die with their last objects), so the round after it compiles that code again: the
  // warm rounds (`collect` false) leave the heap as the round before left it.
  if (collect) heapUsed();
  const c0 = process.cpuUsage();
  const t0 = now();
  const root = runtime.startRoot({ prompt: 'fan out', label: 'root' });
  await root.whenIdle();
  const wall = now() - t0;
  const cpu = cpuMs(c0);
  if (store) await store.flushAll();
  const written = now() - t0;
  if (root.lastTurnEnd?.reason !== 'completed') throw new Error(`fan-out did not complete: ${JSON.stringify(root.lastTurnEnd)}`);
  const calls = k * 3 + 2;
  const bare = await bareModelCalls(new core.ScriptedModel(fanOutScript(k)), calls);
  await runtime.dispose();
  if (store && dir) {
    await store.dispose();
    if (check) await checkWritten(core, dir, k);
  }
  return { wall: ms(wall), written: ms(written), overhead: (us(wall) - us(bare)) / calls, cpu };
}

/**
 * A window's second durable fan-out (see the top of this file): ms from its start until every
 * session of the store is on disk. Both runtimes stay alive until then, as a window's does.
 */
async function secondFanOut(core: Core, scratch: string): Promise<number> {
  const dir = fs.mkdtempSync(path.join(scratch, 'store-'));
  const store = new core.JsonlSessionStore(dir);
  const runtimes: Runtime[] = [];
  const fanOutOnce = async (): Promise<void> => {
    const runtime = new core.Runtime({ model: new core.ScriptedModel(fanOutScript(K)), tools: [noopTool(core)], limits: { maxLiveChildren: K, maxTurns: 10 }, sessions: store });
    runtimes.push(runtime);
    const root = runtime.startRoot({ prompt: 'fan out', label: 'root' });
    await root.whenIdle();
    await store.flushAll();
    if (root.lastTurnEnd?.reason !== 'completed') throw new Error(`fan-out did not complete: ${JSON.stringify(root.lastTurnEnd)}`);
  };
  await fanOutOnce();
  // Its one-shot sessions are being filed (a tree that files them at once has them all already).
  for (let waited = 0; waited < 2000 && !fs.readdirSync(dir).some((name) => name.startsWith('worker')); waited += 5) await new Promise((resolve) => setTimeout(resolve, 5));
  heapUsed();
  const t0 = now();
  await fanOutOnce();
  const written = ms(now() - t0);
  for (const runtime of runtimes) await runtime.dispose();
  await store.dispose();
  return written;
}

/** Every session of a durable fan-out, read back from its file by another store: all there and ended. */
async function checkWritten(core: Core, dir: string, k: number): Promise<void> {
  const reader = new core.JsonlSessionStore(dir);
  const { sessions, diagnostics } = await reader.listSessions();
  const unfinished = sessions.filter((s) => s.summary.lastTurnEndReason !== 'completed');
  await reader.dispose();
  if (diagnostics.length > 0 || sessions.length !== k + 1 || unfinished.length > 0) {
    throw new Error(`durable fan-out: ${sessions.length} of ${k + 1} sessions on disk, ${unfinished.length} not ended, ${diagnostics.length} unreadable`);
  }
}

export async function fanOut(core: Core, rounds = 3): Promise<Record<string, number>> {
  await round(core, 100, undefined); // warm-up of the JIT
  await round(core, K, undefined);
  const measured: Round[] = [];
  for (let r = 0; r < rounds; r++) measured.push(await round(core, K, undefined));
  // Then the same rounds without the forced collection before each: the runtime as a window runs
  // it, its compiled code kept from one fan-out to the next.
  const warm: Round[] = [];
  for (let r = 0; r < rounds; r++) warm.push(await round(core, K, undefined, false, false));
  return {
    w1WallMs: median(measured.map((r) => r.wall)),
    w1CpuMs: median(measured.map((r) => r.cpu)),
    overheadPerCallUs: median(measured.map((r) => r.overhead)),
    w1WarmWallMs: median(warm.map((r) => r.wall)),
    overheadWarmPerCallUs: median(warm.map((r) => r.overhead)),
  };
}

/** Creates `files` small files in a fresh folder as the store does (exclusive open, one write, close; 16 at a time): ms. */
async function bareFileCreation(scratch: string, files: number): Promise<number> {
  const dir = fs.mkdtempSync(path.join(scratch, 'files-'));
  const line = Buffer.alloc(2048, 0x20);
  const exclusive = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL;
  let next = 0;
  const t0 = now();
  const worker = async (): Promise<void> => {
    while (next < files) {
      const handle = await fs.promises.open(path.join(dir, `f${next++}.jsonl`), exclusive);
      await handle.write(line, 0, line.length, 0);
      await handle.close();
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return ms(now() - t0);
}

export async function durable(core: Core, pairs = 2): Promise<Record<string, number>> {
  const scratch = scratchFolder();
  try {
    return await durablePairs(core, scratch.root, pairs);
  } finally {
    scratch.remove();
  }
}

async function durablePairs(core: Core, scratch: string, pairs: number): Promise<Record<string, number>> {
  await round(core, K, undefined); // warm-up of both paths
  await round(core, K, scratch);
  const onDisk: number[] = [];
  const idle: number[] = [];
  const floor: number[] = [];
  const overFloor: number[] = [];
  for (let r = 0; r < pairs; r++) {
    const memory = await round(core, K, undefined);
    const stored = await round(core, K, scratch, r === pairs - 1);
    const files = await bareFileCreation(scratch, K + 1);
    onDisk.push(stored.written / memory.wall);
    idle.push(stored.wall / memory.wall);
    floor.push((memory.wall + files) / memory.wall);
    overFloor.push(stored.written / (memory.wall + files));
  }
  // The same pairs warm: no forced full collection before a round (see round()).
  const warmOnDisk: number[] = [];
  for (let r = 0; r < pairs; r++) {
    const memory = await round(core, K, undefined, false, false);
    const stored = await round(core, K, scratch, false, false);
    warmOnDisk.push(stored.written / memory.wall);
  }
  const second: number[] = [];
  for (let r = 0; r < pairs; r++) {
    const memory = await round(core, K, undefined);
    second.push((await secondFanOut(core, scratch)) / memory.wall);
  }
  return {
    durableOnDiskRatio: median(onDisk),
    durableIdleRatio: median(idle),
    durableFloorRatio: median(floor),
    durableOverFloor: median(overFloor),
    durableWarmOnDiskRatio: median(warmOnDisk),
    durableSecondOnDiskRatio: median(second),
  };
}
