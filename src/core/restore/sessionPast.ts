import * as fs from 'node:fs';
import { unwrapLog, type Agent } from '../agents/agent';
import type { SessionEvent } from '../sessions/types';
import { DeferredSessionLog } from './deferredLog';
import type { LiveAgentRecord, PastRecord } from './liveRecord';

/**
 * What a live-state record keeps of an agent's session (liveRecord.ts `past`): what the tree
 * shows of it, taken from the live agent, and the length of its file, learned after.
 *
 * Invariants: a length is kept only when it belongs to the state taken with it. The state is
 * taken while everything the log holds is written (not dirty), the file's length is read after,
 * and it counts only if the log has had no event appended meanwhile and is still written: an
 * event is the only way the agent changes its file, so the file then holds exactly that state.
 * Anything else keeps no past, and the next window reads the log, as it did before records had one.
 */

/** A drafted past, waiting for its file's length. */
export interface PastDraft {
  readonly record: LiveAgentRecord;
  readonly past: Omit<PastRecord, 'length'>;
  /** The length known already (a log still unread has the one it was restored with), or how to learn it. */
  readonly known?: number;
  readonly file?: string;
  readonly log: { readonly dirty?: boolean; readonly events: readonly SessionEvent[] };
  readonly events: number;
}

/** A last turn's final text is kept this long in a record (the log keeps it whole, and gives it back once read). */
const FINAL_TEXT_KEPT = 2_000;

/**
 * The queue a log's events leave (ids waiting, last id used), folded once per event: each record
 * write folds only the new ones. By the events' list, which a log keeps for its life (a log read
 * late has one list before its read, the early events, and another after).
 */
const queues = new WeakMap<readonly SessionEvent[], { at: number; ids: Set<number>; lastId: number }>();

function queueOf(events: readonly SessionEvent[], from?: { ids: readonly number[]; lastId: number }): { ids: number[]; lastId: number } {
  let q = queues.get(events);
  if (!q || q.at > events.length) queues.set(events, (q = { at: 0, ids: new Set(from?.ids), lastId: from?.lastId ?? 0 }));
  for (; q.at < events.length; q.at++) {
    const e = events[q.at];
    if (e.type === 'queued') {
      q.ids.add(e.id);
      q.lastId = Math.max(q.lastId, e.id);
    } else if (e.type === 'user_message' && e.queuedId !== undefined) q.ids.delete(e.queuedId);
    else if (e.type === 'queue_dropped') for (const id of e.ids) q.ids.delete(id);
  }
  return { ids: [...q.ids], lastId: q.lastId };
}

/** The past of `agent`'s session as it stands, unless its log has events not yet written. */
export function draftPast(agent: Agent, record: LiveAgentRecord): PastDraft | undefined {
  const log = unwrapLog(agent.log) as SessionEventsLog;
  if (log.dirty !== false) return undefined;
  const unread = log instanceof DeferredSessionLog ? log.unread : undefined;
  if (!unread && typeof log.file !== 'string') return undefined;
  const end = agent.lastTurnEnd;
  const past: Omit<PastRecord, 'length'> = {
    header: { ...log.header },
    turns: agent.turnCount,
    tokens: { input: agent.usage.inputTokens, output: agent.usage.outputTokens },
    ...(end ? { lastEnd: { turn: end.turn, reason: end.reason, ...(end.cause ? { cause: end.cause } : {}), ...(end.message !== undefined ? { message: end.message } : {}), finalText: end.finalText.slice(0, FINAL_TEXT_KEPT) } } : {}),
    // An unread log's queue is its record's, and what was appended since (nothing, while it is written).
    queue: queueOf(log.events, unread?.queue),
    ...(agent.plan ? { plan: agent.plan.map((item) => ({ ...item })) } : {}),
  };
  return unread ? { record, past, known: unread.length, log, events: log.events.length } : { record, past, file: log.file, log, events: log.events.length };
}

interface SessionEventsLog {
  readonly header: PastRecord['header'];
  readonly events: readonly SessionEvent[];
  readonly dirty?: boolean;
  readonly file?: string;
}

/** Puts the past on its record once its file's length is known and still belongs to it (see above). */
export function settlePast(draft: PastDraft, length: number | undefined): void {
  const still = draft.log.dirty === false && draft.log.events.length === draft.events;
  if (length !== undefined && still) draft.record.past = { ...draft.past, length };
}

export function lengthSync(draft: PastDraft): number | undefined {
  if (draft.known !== undefined) return draft.known;
  try {
    return fs.statSync(draft.file!).size;
  } catch {
    // Not there (yet): no past; the next window reads what there is.
    return undefined;
  }
}

export async function lengthOf(draft: PastDraft): Promise<number | undefined> {
  if (draft.known !== undefined) return draft.known;
  return fs.promises.stat(draft.file!).then(
    (stat) => stat.size,
    () => undefined,
  );
}
