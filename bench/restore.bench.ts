/**
 * Restore after a reload: how long Runtime.restoreLive takes to put back 50 roots with 20 live
 * continuable children each (1,050 sessions of about 60 KB) from their live-state records, in a
 * folder that also holds 2,000 past sessions, its CPU time, and the longest stretch the event
 * loop was blocked meanwhile (as the event-loop delay monitor sees it, and as the longest time
 * between two turns of the loop in wall and in CPU time: on a shared machine the wall time also
 * counts the waits for a core). Two kinds of record, measured in the same run: this version's,
 * which keep what the tree shows of each session with its log's length (no transcript is read: a
 * lock and a stat each), and records without it, as an older version wrote them (each session
 * reopened for writing: lock, read, repair). Prints figures and their ratio, asserts nothing.
 * Goal (issue 30): under 100 ms, no block over 50 ms.
 *
 *   npm run bench:restore      ARBOR_BENCH_DIR=<folder> for another disk, ARBOR_BENCH_RUNS=<n>,
 *                              ARBOR_BENCH_KIND=current|older for one kind alone (to profile it)
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { ScriptedModel } from '../src/core/models/scriptedModel';
import { LIVE_RECORD_VERSION, LiveRecordFiles, type LiveAgentRecord } from '../src/core/restore';
import { Runtime } from '../src/core/runtime';
// The restore's part, compiled before the clock starts: the extension loads it bundled, and what
// loading code costs is the activation benchmark's, not this one's.
import '../src/core/restore/restorePart';
import { JsonlSessionStore, SESSION_FORMAT_VERSION, type SessionEvent, type SessionHeader } from '../src/core/sessions';

const ROOTS = 50;
const CHILDREN = 20;
const PAST = 2_000;
const RUNS = Number(process.env.ARBOR_BENCH_RUNS ?? 3);

function header(id: string, kind: SessionHeader['kind'], parentSession?: string): SessionHeader {
  return { type: 'header', version: SESSION_FORMAT_VERSION, id, createdAt: new Date().toISOString(), delegationDepth: parentSession ? 1 : 0, kind, label: id, interactionMode: 'interactive', ...(parentSession ? { parentSession } : {}) };
}

/** A live session's conversation: 20 finished turns with a tool call each (about 60 KB); a past one has 2. */
const LIVE_TURNS = 20;
const PAST_TURNS = 2;

function events(turns: number): SessionEvent[] {
  const at = new Date().toISOString();
  const out: SessionEvent[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    out.push({ type: 'turn_start', at, turn }, { type: 'user_message', at, text: `task ${turn}`, from: 'user' });
    out.push({ type: 'tool_call', at, call: { id: `c${turn}`, name: 'list_agents', arguments: '{}' } }, { type: 'tool_result', at, toolCallId: `c${turn}`, name: 'list_agents', content: 'x'.repeat(2_400) });
    out.push({ type: 'assistant_text', at, text: 'done '.repeat(40) }, { type: 'usage', at, inputTokens: 300, outputTokens: 60 }, { type: 'turn_end', at, turn, reason: 'completed' });
  }
  return out;
}

async function prepare(dir: string, withPast: boolean): Promise<void> {
  const store = new JsonlSessionStore(dir);
  const files = new LiveRecordFiles(dir);
  const [live, old] = [events(LIVE_TURNS), events(PAST_TURNS)];
  const write = async (h: SessionHeader, body = live): Promise<number> => {
    const log = store.create(h);
    for (const e of body) log.append(e);
    await log.close();
    return fs.statSync(store.fileOf(h.id)).size;
  };
  // What the recorder keeps of each session (liveRecord.ts): all the tree shows, and the log's length.
  const past = (h: SessionHeader, length: number): Pick<LiveAgentRecord, 'past'> =>
    withPast ? { past: { header: h, length, turns: LIVE_TURNS, tokens: { input: 300 * LIVE_TURNS, output: 60 * LIVE_TURNS }, lastEnd: { turn: LIVE_TURNS, reason: 'completed', finalText: 'done '.repeat(40) }, queue: { ids: [], lastId: 0 } } } : {};
  for (let i = 0; i < PAST; i += 100) await Promise.all(Array.from({ length: 100 }, (_, k) => write(header(`past-${i + k}`, 'root'), old)));
  for (let r = 0; r < ROOTS; r++) {
    const root = `root-${r}`;
    const rootHeader = header(root, 'root');
    const agents: LiveAgentRecord[] = [{ id: root, kind: 'root', label: root, holds: [], queued: 0, running: false, cost: 0, order: r * 100, ...past(rootHeader, await write(rootHeader)) }];
    await Promise.all(
      Array.from({ length: CHILDREN }, async (_, c) => {
        const id = `${root}-child-${c}`;
        const h = header(id, 'continuable', root);
        const length = await write(h);
        agents.push({ id, parent: root, kind: 'continuable', label: id, holds: [{ reason: 'stop', since: new Date().toISOString(), release: 'waking-send' }], queued: 0, running: false, cost: 0, order: r * 100 + c + 1, ...past(h, length) });
      }),
    );
    files.writeSync({ version: LIVE_RECORD_VERSION, root, writtenAt: new Date().toISOString(), pid: process.pid, run: { mode: 'interactive', limits: {}, tokensUsed: 0, turnsUsed: 0, modelCallsUsed: 0, cost: 0, unpricedTokens: 0 }, agents });
  }
  await store.dispose();
}

/**
 * The longest stretch between two turns of the event loop, in wall time and in the process's CPU
 * time: on a shared machine a process waits for a core too, which the wall time counts as a block
 * and the CPU time does not (it counts the libuv threads and the collector as well: an upper bound).
 */
function sliceMonitor(): () => { wallMs: number; cpuMs: number } {
  let [wall, cpu] = [performance.now(), process.cpuUsage()];
  let [maxWall, maxCpu] = [0, 0];
  let timer: NodeJS.Timeout;
  const tick = (): void => {
    const [nowWall, nowCpu] = [performance.now(), process.cpuUsage()];
    maxWall = Math.max(maxWall, nowWall - wall);
    maxCpu = Math.max(maxCpu, (nowCpu.user - cpu.user + nowCpu.system - cpu.system) / 1000);
    [wall, cpu] = [nowWall, nowCpu];
    timer = setTimeout(tick, 1);
  };
  timer = setTimeout(tick, 1);
  return () => {
    clearTimeout(timer);
    tick();
    clearTimeout(timer);
    return { wallMs: maxWall, cpuMs: maxCpu };
  };
}

async function once(dir: string): Promise<{ ms: number; cpuMs: number; blockMs: number; slice: { wallMs: number; cpuMs: number }; roots: number; agents: number; problems: number }> {
  const store = new JsonlSessionStore(dir);
  const runtime = new Runtime({ model: new ScriptedModel({ version: 1, agents: {} }), sessions: store, liveRecordsFolder: dir });
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const slices = sliceMonitor();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const report = await runtime.restoreLive();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const slice = slices();
  loop.disable();
  const result = { ms, cpuMs: (cpu.user + cpu.system) / 1000, blockMs: loop.max / 1e6, slice, roots: report.roots.length, agents: report.agents.length, problems: report.problems.length };
  const shutdown = runtime.dispose();
  store.closeAllSync();
  await shutdown;
  return result;
}

async function main(): Promise<void> {
  const base = process.env.ARBOR_BENCH_DIR ?? os.tmpdir();
  const dirs = { current: fs.mkdtempSync(path.join(base, 'arbor-restore-bench-')), older: fs.mkdtempSync(path.join(base, 'arbor-restore-bench-old-')) };
  try {
    const t0 = performance.now();
    await prepare(dirs.current, true);
    if (process.env.ARBOR_BENCH_KIND !== 'current') await prepare(dirs.older, false);
    console.log(`prepared twice ${PAST} past sessions and ${ROOTS} roots x ${CHILDREN} children in ${(performance.now() - t0).toFixed(0)} ms`);
    // Each restore starts from the records as prepared: the window a restore opens rewrites them as it closes.
    const recordsOf = (dir: string): Map<string, Buffer> => {
      const folder = new LiveRecordFiles(dir).folder;
      return new Map(fs.existsSync(folder) ? fs.readdirSync(folder).map((name) => [path.join(folder, name), fs.readFileSync(path.join(folder, name))]) : []);
    };
    const prepared = { current: recordsOf(dirs.current), older: recordsOf(dirs.older) };
    const medians: Record<string, number> = {};
    // ARBOR_BENCH_KIND=current (or older) measures one kind alone (for a profile: node --cpu-prof ...).
    const only = process.env.ARBOR_BENCH_KIND;
    for (const kind of (['current', 'older'] as const).filter((k) => !only || k === only)) {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        for (const [file, data] of prepared[kind]) fs.writeFileSync(file, data);
        const r = await once(dirs[kind]);
        times.push(r.ms);
        console.log(`${kind === 'current' ? 'records with the tree state' : 'records without it (logs read)'} ${i + 1}: ${r.ms.toFixed(1)} ms (CPU ${r.cpuMs.toFixed(0)} ms), longest event-loop block ${r.blockMs.toFixed(1)} ms (longest slice ${r.slice.wallMs.toFixed(1)} ms, CPU ${r.slice.cpuMs.toFixed(1)} ms), ${r.roots} roots, ${r.agents} agents, ${r.problems} problems`);
      }
      medians[kind] = times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
    }
    if (!only) console.log(`median restore: ${medians.current.toFixed(1)} ms against ${medians.older.toFixed(1)} ms with the logs read (${(medians.older / medians.current).toFixed(1)}x)`);
  } finally {
    for (const dir of Object.values(dirs)) fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
