import type { LiveRootRecord } from './liveRecord';
import { LIVE_RECORD_VERSION } from './liveRecordFiles';

/**
 * A quicker check of a live-state record, in front of its schema (liveRecord.ts). A window that
 * starts reads every record at once, and the schema's first runs in a fresh process cost about
 * as much as all the rest of the restore (a thousand agents, each with a header, holds and a
 * past). It accepts a record only when every object holds only keys the schema knows and every
 * value is exactly what the schema requires, so the record is used as parsed; anything else
 * returns false, and the schema decides and words the error. It never accepts what the schema
 * rejects; a property test holds it to that.
 */

type Check = (value: unknown) => boolean;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
const str: Check = (v) => typeof v === 'string';
const nonEmpty: Check = (v) => typeof v === 'string' && v.length > 0;
const num: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const nonNegative: Check = (v) => num(v) && (v as number) >= 0;
const count: Check = (v) => Number.isSafeInteger(v) && (v as number) >= 0;
const int: Check = (v) => Number.isSafeInteger(v);
const bool: Check = (v) => typeof v === 'boolean';
const oneOf = (...values: string[]): Check => {
  const set = new Set(values);
  return (v) => typeof v === 'string' && set.has(v);
};
const listOf = (item: Check, min = 0): Check => (v) => Array.isArray(v) && v.length >= min && v.every(item);

/** An object with exactly these keys (those marked `?` may be absent; undefined is not JSON, so it never occurs). */
function shape(fields: Record<string, Check>): Check {
  const list = Object.entries(fields).map(([name, check]) => (name.endsWith('?') ? { key: name.slice(0, -1), check, optional: true } : { key: name, check, optional: false }));
  return (v) => {
    if (!isObject(v)) return false;
    let present = 0;
    for (const { key, check, optional } of list) {
      const value = v[key];
      if (value === undefined) {
        if (!optional) return false;
        continue;
      }
      if (!check(value)) return false;
      present++;
    }
    // Only known keys: a key the schema would strip (or one set to undefined) leaves the record to the schema.
    return Object.keys(v).length === present;
  };
}

const hold = shape({
  reason: oneOf('stop', 'branch', 'reload', 'budget', 'runaway'),
  since: str,
  release: oneOf('waking-send', 'raise', 'person-message'),
  'detail?': str,
  'report?': str,
  'interrupted?': (v) => v === true,
});

const endedRow = shape({ id: nonEmpty, label: str, kind: oneOf('root', 'one-shot', 'continuable'), how: str, tokens: nonNegative, cost: nonNegative, creationOrder: num });

/** The timestamps this code writes (Date.toISOString), checked to be real dates; any other form is the schema's to judge. */
const iso: Check = (v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(v) && !Number.isNaN(Date.parse(v)) && new Date(v).toISOString() === v;

/** A session header (sessions/schema.ts). */
const header = shape({
  type: (v) => v === 'header',
  version: (v) => count(v) && (v as number) > 0,
  id: nonEmpty,
  createdAt: iso,
  'parentSession?': nonEmpty,
  delegationDepth: count,
  kind: oneOf('root', 'one-shot', 'continuable'),
  label: str,
  'workspace?': str,
  interactionMode: oneOf('interactive', 'scheduled', 'webhook', 'autonomous'),
  'resumedFrom?': nonEmpty,
  'external?': nonEmpty,
  'definition?': shape({ name: nonEmpty, file: str }),
});

const past = shape({
  header,
  length: count,
  turns: count,
  tokens: shape({ input: nonNegative, output: nonNegative }),
  'lastEnd?': shape({ turn: count, reason: oneOf('completed', 'aborted', 'blocked', 'error', 'budget', 'paused', 'interrupted'), 'cause?': oneOf('user', 'parent', 'disposed', 'budget'), 'message?': str, finalText: str }),
  queue: shape({ ids: listOf(count), lastId: count }),
  'plan?': listOf(shape({ step: str, status: oneOf('pending', 'in_progress', 'done') })),
});

const slice = shape({
  limits: shape({ tokens: nonNegative, cost: nonNegative, modelCalls: nonNegative, wallTimeSeconds: nonNegative }),
  tokensUsed: nonNegative,
  cost: nonNegative,
  modelCallsUsed: nonNegative,
  'wallSeconds?': nonNegative,
  'from?': nonEmpty,
  'paused?': hold,
});

const agent = shape({
  id: nonEmpty,
  'parent?': nonEmpty,
  kind: oneOf('root', 'continuable'),
  label: str,
  holds: listOf(hold),
  queued: count,
  running: bool,
  'planMode?': bool,
  cost: nonNegative,
  'warning?': str,
  'slice?': slice,
  'scope?': shape({ terms: listOf(listOf(nonEmpty)), globs: listOf(nonEmpty), setBy: listOf(str) }),
  'ended?': listOf(endedRow),
  order: num,
  'past?': past,
});

const limits: Check = (v) => isObject(v) && Object.values(v).every(num);

const run = shape({
  mode: oneOf('interactive', 'scheduled', 'webhook', 'autonomous'),
  limits,
  tokensUsed: nonNegative,
  turnsUsed: nonNegative,
  modelCallsUsed: nonNegative,
  cost: nonNegative,
  unpricedTokens: nonNegative,
  'wallSeconds?': nonNegative,
  'model?': str,
  'folder?': str,
  'worktree?': shape({ repo: str, root: str, folder: str, branch: str, base: str }),
  'paused?': hold,
});

const record = shape({ version: (v) => v === LIVE_RECORD_VERSION, root: nonEmpty, writtenAt: str, pid: int, run, agents: listOf(agent, 1) });

/** True when `json` is a record the schema accepts as it is (see above); false means: ask the schema. */
export function isLiveRecordAtAGlance(json: unknown): json is LiveRootRecord {
  return record(json);
}
