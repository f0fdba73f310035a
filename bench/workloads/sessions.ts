/**
 * `sessions`: the JSONL session store's own paths, the figures of bench/sessions.bench.ts that
 * the runtime waits on, here so that bench:compare measures them against a baseline in the same
 * run (one process per tree per pair, the trees alternating):
 *
 *  - `sessionPerTurnEventsPerS`: appending 20,000 events with a flush at every turn end (the
 *    runtime's pattern), events per second, the median of 5 rounds;
 *  - `sessionLoadMs`: loadSession of a 10,000-event file (read, parse, validate, repair) by a
 *    new store, the median of 9;
 *  - `historyColdMs`: listSessions of a folder of 2,000 sessions of 20 events with no index on
 *    disk (History's first look in a new window), the median of 5 after one warm-up listing;
 *  - `historyWarmMs`: the same listing by a new store with the index on disk (a tree without
 *    an index reads every file again);
 *  - `historyRelistMs`: a second listing by the store that just listed (History's refresh).
 *
 * Each round writes into a folder of its own under one scratch folder that is removed only after
 * the last measurement (see fanOut.ts for why removing files while measuring is avoided).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { forged } from '../../test/support/forged';
import type { Core, SessionStore } from './core';
import { median, ms, now } from './measure';
import { eventAt, headerFor } from './sessionEvents';

const PER_TURN_EVENTS = 20_000;
const LOAD_EVENTS = 10_000;
const HISTORY_SESSIONS = 2_000;

/** A folder of this run's own: in bench:compare's scratch folder, which it removes after its last run; else in the OS temp folder, removed at the end. */
function scratch(): { root: string; remove: () => void } {
  const given = process.env.ARBOR_BENCH_SCRATCH;
  if (given) {
    fs.mkdirSync(given, { recursive: true });
    return { root: fs.mkdtempSync(path.join(given, 'sessions-')), remove: () => undefined };
  }
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-compare-sessions-'));
  return { root, remove: () => fs.rmSync(root, { recursive: true, force: true }) };
}

/**
 * The store's session index written now (it is otherwise written a few seconds after a listing).
 * A tree older than the index (99d4058) has none: its new window reads every file again, which
 * is then its figure for a listing with the index on disk.
 */
async function saveIndex(store: SessionStore): Promise<void> {
  // The index moved behind the catalogue reader in the architecture step; a baseline may hold it on the store.
  const held = forged<{ catalog?: { index: { save(): Promise<void> } }; index?: { save(): Promise<void> } }>(store);
  await (held.catalog?.index ?? held.index)?.save();
}

export async function sessions(core: Core): Promise<Record<string, number>> {
  const { root, remove } = scratch();
  const version = core.sessionFormatVersion;
  const events = Array.from({ length: PER_TURN_EVENTS }, (_, i) => eventAt(i));
  try {
    const perTurn: number[] = [];
    for (let round = 0; round < 5; round++) {
      const store = new core.JsonlSessionStore(path.join(root, `turns-${round}`));
      const log = store.create(headerFor('bench', version));
      const t0 = now();
      for (const event of events) {
        log.append(event);
        if (event.type === 'turn_end') await log.flush();
      }
      await log.flush();
      perTurn.push(events.length / (ms(now() - t0) / 1000));
      await store.dispose();
    }

    const loadRoot = path.join(root, 'load');
    {
      const store = new core.JsonlSessionStore(loadRoot);
      const log = store.create(headerFor('long', version));
      for (let i = 0; i < LOAD_EVENTS; i++) log.append(events[i]);
      await store.dispose();
    }
    const load: number[] = [];
    for (let round = 0; round < 9; round++) {
      const store = new core.JsonlSessionStore(loadRoot);
      const t0 = now();
      const loaded = await store.loadSession('long');
      load.push(ms(now() - t0));
      if (loaded.events.length !== LOAD_EVENTS) throw new Error('loadSession lost events');
      await store.dispose();
    }

    const historyRoot = path.join(root, 'history');
    {
      const writer = new core.JsonlSessionStore(historyRoot);
      for (let s = 0; s < HISTORY_SESSIONS; s++) {
        const log = writer.create(headerFor(`session-${s}`, version));
        for (let i = 0; i < 20; i++) log.append(events[i]);
      }
      await writer.dispose();
    }
    const indexFile = path.join(historyRoot, 'session-index.json');
    const listed = async (store: SessionStore): Promise<number> => {
      const t0 = now();
      const catalog = await store.listSessions();
      const took = ms(now() - t0);
      if (catalog.sessions.length !== HISTORY_SESSIONS) throw new Error(`History listed ${catalog.sessions.length} sessions of ${HISTORY_SESSIONS}`);
      return took;
    };
    const cold: number[] = [];
    const warm: number[] = [];
    const relist: number[] = [];
    for (let round = 0; round < 6; round++) {
      fs.rmSync(indexFile, { force: true });
      const first = new core.JsonlSessionStore(historyRoot);
      const coldMs = await listed(first);
      const relistMs = await listed(first);
      await saveIndex(first);
      await first.dispose();
      const second = new core.JsonlSessionStore(historyRoot);
      const warmMs = await listed(second);
      await second.dispose();
      // The first round warms the code paths up.
      if (round > 0) {
        cold.push(coldMs);
        relist.push(relistMs);
        warm.push(warmMs);
      }
    }
    return {
      sessionPerTurnEventsPerS: median(perTurn),
      sessionLoadMs: median(load),
      historyColdMs: median(cold),
      historyWarmMs: median(warm),
      historyRelistMs: median(relist),
    };
  } finally {
    remove();
  }
}
