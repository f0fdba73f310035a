/**
 * Durable sessions: what an append costs on the runtime's hot path, and what loading a long
 * session costs. Run with `npx tsx bench/sessions.bench.ts`. Prints figures, asserts nothing.
 *
 *   append, batched      JsonlSessionStore with its default policy; time includes the final flush
 *   append, per turn     the runtime's pattern: flush() at every turn end (20 events per turn)
 *   append, fsync/turn   the same with fsync at each turn end (arbor.sessions.fsyncAtTurnEnd)
 *   append, hot path     time spent inside append() alone (what the agent loop waits for)
 *   append, sync/event   baseline: one fs.appendFileSync per event
 *   load 10k             loadSession of a 10,000-event file (read, parse, validate, repair)
 *   list 10k             listSessions of a folder holding that file
 *   History at scale     listSessions of 2,000 sessions plus one 50 MB session: cold (no index),
 *                        warm (a new window, index on disk), the refresh after a turn end, and
 *                        after the 50 MB session grew (its prefix checksummed, its new lines read);
 *                        wall time, the longest stretch the event loop was blocked, heap growth
 *
 * ARBOR_BENCH_DIR=<folder> measures on another disk than the OS temp folder;
 * ARBOR_BENCH_ONLY=history prints only the History figures.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { JsonlSessionStore, SESSION_FORMAT_VERSION, type SessionHeader } from '../src/core/sessions';
import { saveSessionIndexNow } from '../test/support/forged';
import { eventAt, EVENTS_PER_TURN, headerFor as sharedHeader } from './workloads/sessionEvents';

const RUNS = 7;
const APPEND_EVENTS = 50_000;
const BASELINE_EVENTS = 10_000;
const LOAD_EVENTS = 10_000;
const FSYNC_EVENTS = 4_000;

function headerFor(id: string): SessionHeader {
  return sharedHeader(id, SESSION_FORMAT_VERSION);
}

function stats(values: number[]): { median: number; min: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1] };
}

function fmt(n: number, digits = 0): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

function report(name: string, values: number[], unit: string, digits = 0): void {
  const s = stats(values);
  console.log(`${name.padEnd(34)} median ${fmt(s.median, digits).padStart(12)} ${unit}   (min ${fmt(s.min, digits)}, max ${fmt(s.max, digits)}, ${values.length} runs)`);
}

async function main(): Promise<void> {
  const base = process.env.ARBOR_BENCH_DIR ?? os.tmpdir();
  const root = fs.mkdtempSync(path.join(base, 'arbor-bench-sessions-'));
  const events = Array.from({ length: APPEND_EVENTS }, (_, i) => eventAt(i));
  const bytesPerEvent = events.reduce((n, e) => n + JSON.stringify(e).length + 1, 0) / events.length;
  console.log(`Node ${process.version}, ${os.cpus().length} cores, ${os.platform()}; folder ${base}`);
  console.log(`events average ${fmt(bytesPerEvent)} bytes as JSONL; ${RUNS} runs each\n`);

  const batched: number[] = [];
  const perTurn: number[] = [];
  const perTurnFsync: number[] = [];
  const perTurnFsyncMs: number[] = [];
  const hotPathUs: number[] = [];
  const baseline: number[] = [];
  const load: number[] = [];
  const loadPerEventUs: number[] = [];
  const list: number[] = [];

  try {
    for (let run = 0; run < RUNS; run++) {
      // Batched, default policy, one flush at the end.
      {
        const store = new JsonlSessionStore(path.join(root, `batched-${run}`));
        const log = store.create(headerFor('bench'));
        let inAppend = 0;
        const t0 = performance.now();
        for (const e of events) {
          const a = performance.now();
          log.append(e);
          inAppend += performance.now() - a;
        }
        await log.flush();
        const ms = performance.now() - t0;
        batched.push((events.length / ms) * 1000);
        hotPathUs.push((inAppend * 1000) / events.length);
        await store.dispose();
      }
      // The runtime's pattern: flush at every turn end.
      {
        const store = new JsonlSessionStore(path.join(root, `turns-${run}`));
        const log = store.create(headerFor('bench'));
        const t0 = performance.now();
        for (let i = 0; i < events.length; i++) {
          log.append(events[i]);
          if (events[i].type === 'turn_end') await log.flush();
        }
        await log.flush();
        perTurn.push((events.length / (performance.now() - t0)) * 1000);
        await store.dispose();
      }
      // The same with fsync at every turn end (the arbor.sessions.fsyncAtTurnEnd setting).
      {
        const store = new JsonlSessionStore(path.join(root, `turns-fsync-${run}`), { fsyncAtFlush: true });
        const log = store.create(headerFor('bench'));
        const t0 = performance.now();
        for (let i = 0; i < FSYNC_EVENTS; i++) {
          log.append(events[i]);
          if (events[i].type === 'turn_end') await log.flush();
        }
        await log.flush();
        const ms = performance.now() - t0;
        perTurnFsync.push((FSYNC_EVENTS / ms) * 1000);
        perTurnFsyncMs.push((ms / FSYNC_EVENTS) * EVENTS_PER_TURN);
        await store.dispose();
      }
      // Baseline: one synchronous append per event.
      {
        const dir = path.join(root, `sync-${run}`);
        fs.mkdirSync(dir);
        const file = path.join(dir, 'bench.jsonl');
        const t0 = performance.now();
        fs.appendFileSync(file, JSON.stringify(headerFor('bench')) + '\n');
        for (let i = 0; i < BASELINE_EVENTS; i++) fs.appendFileSync(file, JSON.stringify(events[i]) + '\n');
        baseline.push((BASELINE_EVENTS / (performance.now() - t0)) * 1000);
      }
    }

    // Load and list a 10,000-event session.
    const loadRoot = path.join(root, 'load');
    {
      const store = new JsonlSessionStore(loadRoot);
      const log = store.create(headerFor('long'));
      for (let i = 0; i < LOAD_EVENTS; i++) log.append(events[i]);
      await store.dispose();
    }
    const fileBytes = fs.statSync(path.join(loadRoot, 'long.jsonl')).size;
    for (let run = 0; run < RUNS; run++) {
      const store = new JsonlSessionStore(loadRoot);
      const t0 = performance.now();
      const loaded = await store.loadSession('long');
      const ms = performance.now() - t0;
      if (loaded.events.length !== LOAD_EVENTS) throw new Error('load lost events');
      load.push(ms);
      loadPerEventUs.push((ms * 1000) / LOAD_EVENTS);
      const t1 = performance.now();
      await store.listSessions();
      list.push(performance.now() - t1);
    }

    report('append, batched (default policy)', batched, 'events/s');
    report('append, flush at each turn end', perTurn, 'events/s');
    report('append, flush + fsync at turn end', perTurnFsync, 'events/s');
    report('  time per turn (20 events) with fsync', perTurnFsyncMs, 'ms', 2);
    report('append, time inside append()', hotPathUs, 'µs/event', 2);
    report('append, appendFileSync per event', baseline, 'events/s');
    console.log(`  ratio batched / appendFileSync: ${fmt(stats(batched).median / stats(baseline).median, 1)}x, per-turn flush / appendFileSync: ${fmt(stats(perTurn).median / stats(baseline).median, 1)}x`);
    console.log('');
    console.log(`session of ${fmt(LOAD_EVENTS)} events, ${fmt(fileBytes / 1024 / 1024, 1)} MiB:`);
    report('loadSession', load, 'ms', 1);
    report('loadSession per event', loadPerEventUs, 'µs/event', 2);
    report('listSessions (that one file)', list, 'ms', 1);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

/** Runs `fn`, measuring its wall time, the longest event-loop stall during it, and heap growth at its peak. */
async function measured<T>(fn: () => Promise<T>): Promise<{ result: T; ms: number; blockedMs: number; heapMiB: number }> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const t0 = performance.now();
  const result = await fn();
  const ms = performance.now() - t0;
  delay.disable();
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  return { result, ms, blockedMs: delay.max / 1e6, heapMiB: (peak - before) / 1024 / 1024 };
}

async function historyAtScale(): Promise<void> {
  const base = process.env.ARBOR_BENCH_DIR ?? os.tmpdir();
  const root = fs.mkdtempSync(path.join(base, 'arbor-bench-history-'));
  try {
    const writer = new JsonlSessionStore(root);
    for (let s = 0; s < 2000; s++) {
      const log = writer.create(headerFor(`session-${s}`));
      for (let i = 0; i < 20; i++) log.append(eventAt(i));
    }
    const big = writer.create(headerFor('big'));
    let i = 0;
    while (i < 1_000_000) {
      big.append(eventAt(i++));
      if (i % 5000 === 0) {
        await big.flush();
        if (fs.statSync(big.file).size >= 50 * 1024 * 1024) break;
      }
    }
    await writer.dispose();
    const bigBytes = fs.statSync(path.join(root, 'big.jsonl')).size;
    console.log(`\nHistory at scale: 2,000 sessions of 20 events and one of ${fmt(i)} events (${fmt(bigBytes / 1024 / 1024, 1)} MiB)`);
    const line = (name: string, m: { ms: number; blockedMs: number; heapMiB: number }): void =>
      console.log(`${name.padEnd(44)} ${fmt(m.ms, 0).padStart(6)} ms   longest event-loop block ${fmt(m.blockedMs, 0).padStart(4)} ms   heap growth ${fmt(m.heapMiB, 1).padStart(6)} MiB`);

    for (let run = 0; run < 2; run++) {
      fs.rmSync(path.join(root, 'session-index.json'), { force: true });
      const cold = new JsonlSessionStore(root);
      const c = await measured(() => cold.listSessions());
      if (c.result.sessions.length !== 2001) throw new Error('History lost sessions');
      line(`listSessions, cold (no index)${run ? '' : ' [warm-up]'}`, c);
      await saveSessionIndexNow(cold);
      const warm = new JsonlSessionStore(root);
      line('listSessions, new window (index on disk)', await measured(() => warm.listSessions()));
      // A turn ends in one session: the refresh History does while visible.
      const log = await warm.reopenLog('session-7');
      log.append({ type: 'turn_start', at: new Date().toISOString(), turn: 99 });
      log.append({ type: 'turn_end', at: new Date().toISOString(), turn: 99, reason: 'completed' });
      await log.close();
      line('listSessions, full relist after a turn end', await measured(() => warm.listSessions()));
      line('History refresh after a turn end (that session)', await measured(() => warm.sessionEntries(['session-7'])));
      // The 50 MB session grows in another window: its prefix is checksummed again, then only the new lines are parsed.
      const bigLog = await warm.reopenLog('big');
      bigLog.append({ type: 'turn_start', at: new Date().toISOString(), turn: 99_999 });
      await bigLog.close();
      line('History refresh after the 50 MB session grew', await measured(() => warm.sessionEntries(['big'])));
      const loadBig = new JsonlSessionStore(root);
      line('loadSession of the 50 MB session', await measured(() => loadBig.loadSession('big')));
    }
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

// ARBOR_BENCH_ONLY=history runs only the History figures.
void (process.env.ARBOR_BENCH_ONLY === 'history' ? historyAtScale() : main().then(() => historyAtScale()));
