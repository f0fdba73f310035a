/**
 * Restore after a reload: how long Runtime.restoreLive takes to put back 50 roots with 20 live
 * continuable children each (1,050 sessions, each reopened for writing: lock, read, repair),
 * from their live-state records, in a folder that also holds 2,000 past sessions, and the
 * longest stretch the event loop was blocked meanwhile. Prints figures, asserts nothing.
 * Goal (issue 30): under 100 ms, no block over 50 ms.
 *
 *   node --require tsx/cjs bench/restore.bench.ts        ARBOR_BENCH_DIR=<folder> for another disk
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { ScriptedModel } from '../src/core/models/scriptedModel';
import { LIVE_RECORD_VERSION, LiveRecordFiles, type LiveAgentRecord } from '../src/core/restore';
import { Runtime } from '../src/core/runtime';
import { JsonlSessionStore, SESSION_FORMAT_VERSION, type SessionEvent, type SessionHeader } from '../src/core/sessions';

const ROOTS = 50;
const CHILDREN = 20;
const PAST = 2_000;
const RUNS = 3;

function header(id: string, kind: SessionHeader['kind'], parentSession?: string): SessionHeader {
  return { type: 'header', version: SESSION_FORMAT_VERSION, id, createdAt: new Date().toISOString(), delegationDepth: parentSession ? 1 : 0, kind, label: id, interactionMode: 'interactive', ...(parentSession ? { parentSession } : {}) };
}

/** A short, finished conversation: two turns with a tool call each. */
function events(): SessionEvent[] {
  const at = new Date().toISOString();
  const out: SessionEvent[] = [];
  for (let turn = 1; turn <= 2; turn++) {
    out.push({ type: 'turn_start', at, turn }, { type: 'user_message', at, text: `task ${turn}`, from: 'user' });
    out.push({ type: 'tool_call', at, call: { id: `c${turn}`, name: 'list_agents', arguments: '{}' } }, { type: 'tool_result', at, toolCallId: `c${turn}`, name: 'list_agents', content: 'x'.repeat(400) });
    out.push({ type: 'assistant_text', at, text: 'done '.repeat(40) }, { type: 'usage', at, inputTokens: 300, outputTokens: 60 }, { type: 'turn_end', at, turn, reason: 'completed' });
  }
  return out;
}

async function prepare(dir: string): Promise<void> {
  const store = new JsonlSessionStore(dir);
  const files = new LiveRecordFiles(dir);
  const body = events();
  const write = async (h: SessionHeader): Promise<void> => {
    const log = store.create(h);
    for (const e of body) log.append(e);
    await log.close();
  };
  for (let i = 0; i < PAST; i += 100) await Promise.all(Array.from({ length: 100 }, (_, k) => write(header(`past-${i + k}`, 'root'))));
  for (let r = 0; r < ROOTS; r++) {
    const root = `root-${r}`;
    await write(header(root, 'root'));
    const agents: LiveAgentRecord[] = [{ id: root, kind: 'root', label: root, holds: [], queued: 0, running: false, cost: 0, order: r * 100 }];
    await Promise.all(
      Array.from({ length: CHILDREN }, async (_, c) => {
        const id = `${root}-child-${c}`;
        await write(header(id, 'continuable', root));
        agents.push({ id, parent: root, kind: 'continuable', label: id, holds: [{ reason: 'stop', since: new Date().toISOString(), release: 'waking-send' }], queued: 0, running: false, cost: 0, order: r * 100 + c + 1 });
      }),
    );
    files.writeSync({ version: LIVE_RECORD_VERSION, root, writtenAt: new Date().toISOString(), pid: process.pid, run: { mode: 'interactive', limits: {}, tokensUsed: 0, turnsUsed: 0, modelCallsUsed: 0, cost: 0, unpricedTokens: 0 }, agents });
  }
  await store.dispose();
}

async function once(dir: string): Promise<{ ms: number; blockMs: number; roots: number; agents: number; problems: number }> {
  const store = new JsonlSessionStore(dir);
  const runtime = new Runtime({ model: new ScriptedModel({ version: 1, agents: {} }), sessions: store, liveRecordsFolder: dir });
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const t0 = performance.now();
  const report = await runtime.restoreLive();
  const ms = performance.now() - t0;
  loop.disable();
  const result = { ms, blockMs: loop.max / 1e6, roots: report.roots.length, agents: report.agents.length, problems: report.problems.length };
  const shutdown = runtime.dispose();
  store.closeAllSync();
  await shutdown;
  return result;
}

async function main(): Promise<void> {
  const base = process.env.ARBOR_BENCH_DIR ?? os.tmpdir();
  const dir = fs.mkdtempSync(path.join(base, 'arbor-restore-bench-'));
  try {
    const t0 = performance.now();
    await prepare(dir);
    console.log(`prepared ${PAST} past sessions and ${ROOTS} roots x ${CHILDREN} children in ${(performance.now() - t0).toFixed(0)} ms`);
    for (let i = 0; i < RUNS; i++) {
      const r = await once(dir);
      console.log(`restore ${i + 1}: ${r.ms.toFixed(1)} ms, longest event-loop block ${r.blockMs.toFixed(1)} ms, ${r.roots} roots, ${r.agents} agents, ${r.problems} problems`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
