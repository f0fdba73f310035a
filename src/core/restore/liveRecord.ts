import * as z from 'zod';
import { once } from '../once';
import { cancelCauseSchema, sessionHeaderSchema, turnEndReasonSchema } from '../sessions/schema';
import { LIVE_RECORD_VERSION } from './liveRecordFiles';

/**
 * The live-state record of one root: what the Agents view shows of it and its live subtree, so
 * that a window that starts again puts the tree back without reading transcripts for it. One
 * small JSON file per root, beside the sessions (`live/<root session>.json`), written by the
 * window that runs the root.
 *
 * Invariants:
 * - The session logs are the truth; the record says which sessions were live, how they hung
 *   together and what the log does not hold (holds, run figures, ended rows, worktree links,
 *   runaway warnings). Queued messages stay in the log: the record keeps their ids only.
 * - What the tree shows of each session (its `past`: header, turns, tokens, last turn end, queue
 *   ids, plan) is kept with the length the log had when it was taken, and only while everything
 *   the agent had appended was written. A restore that finds the log at that length builds the
 *   agent from it and reads the log when the agent needs it; any other length (a write after
 *   the record, a crash, a cut file) means the log is read, as without it.
 * - Plain JSON checked with zod where it is read; a record of another version, or one that does
 *   not parse, is a problem of that root alone, never of the others.
 * - One file per root, so two windows on one workspace never write the same record, and the
 *   session lock (not the record) says which window may take a root back.
 */
export { LIVE_RECORD_VERSION };

const holdSchema = once(() =>
  z.object({
    reason: z.enum(['stop', 'branch', 'reload', 'budget', 'slice', 'runaway']),
    since: z.string(),
    release: z.enum(['waking-send', 'raise', 'slice-raise', 'person-message']),
    detail: z.string().optional(),
    report: z.string().optional(),
    interrupted: z.literal(true).optional(),
    slice: z.string().optional(),
  }),
);

/** An agent's write scope as the runtime holds it: its terms, the globs as asked, who set each level. */
const scopeRecordSchema = once(() =>
  z.object({
    terms: z.array(z.array(z.string().min(1).max(500)).min(1).max(60)).min(1).max(60),
    globs: z.array(z.string().min(1).max(500)).max(60),
    setBy: z.array(z.string().max(1000)).max(60),
  }),
);

/** The budget an agent was started with (budgets/slices.ts): its limits, what its branch used, its pause. */
const sliceRecordSchema = once(() =>
  z.object({
    limits: z.object({ tokens: z.number().nonnegative(), cost: z.number().nonnegative(), modelCalls: z.number().nonnegative(), wallTimeSeconds: z.number().nonnegative() }),
    tokensUsed: z.number().nonnegative(),
    cost: z.number().nonnegative(),
    modelCallsUsed: z.number().nonnegative(),
    /** The wall time it had used, in seconds (none in a record written before it was kept). */
    wallSeconds: z.number().nonnegative().optional(),
    /** The agent whose slice it was taken from; none when it was taken from the run. */
    from: z.string().min(1).optional(),
    paused: holdSchema().optional(),
  }),
);

/** A dimmed row of an ended subagent under its live parent. */
const endedRowSchema = once(() =>
  z.object({
    id: z.string().min(1),
    label: z.string(),
    kind: z.enum(['root', 'one-shot', 'continuable']),
    how: z.string(),
    tokens: z.number().nonnegative(),
    cost: z.number().nonnegative(),
    creationOrder: z.number(),
  }),
);

/** The git worktree a worktree run works in (see workspace/gitWorktree.ts). */
const worktreeLinkSchema = once(() => z.object({ repo: z.string(), root: z.string(), folder: z.string(), branch: z.string(), base: z.string() }));

/** What the tree shows of a session, as its log stood at `length` bytes (see the invariants above). */
const pastSchema = once(() =>
  z.object({
    header: sessionHeaderSchema(),
    length: z.number().int().nonnegative(),
    turns: z.number().int().nonnegative(),
    tokens: z.object({ input: z.number().nonnegative(), output: z.number().nonnegative() }),
    lastEnd: z
      .object({ turn: z.number().int().nonnegative(), reason: turnEndReasonSchema(), cause: cancelCauseSchema().optional(), message: z.string().optional(), finalText: z.string() })
      .optional(),
    /** The ids of the messages queued and not claimed, in order, and the last queue id used. */
    queue: z.object({ ids: z.array(z.number().int().nonnegative()), lastId: z.number().int().nonnegative() }),
    plan: z.array(z.object({ step: z.string(), status: z.enum(['pending', 'in_progress', 'done']) })).optional(),
  }),
);

const liveAgentSchema = once(() =>
  z.object({
    id: z.string().min(1),
    /** The live parent in this record; none for the root. */
    parent: z.string().min(1).optional(),
    kind: z.enum(['root', 'continuable']),
    label: z.string(),
    holds: z.array(holdSchema()),
    /** Messages queued and not claimed: the log holds them, in order. */
    queued: z.number().int().nonnegative(),
    /** A turn was running when the record was written. */
    running: z.boolean(),
    planMode: z.boolean().optional(),
    /** What the agent's tokens cost (its tokens are counted again from its log). */
    cost: z.number().nonnegative(),
    /** A runaway guard's warning, shown on the node until a person speaks to the agent. */
    warning: z.string().optional(),
    /** Its own budget, when it was started with one (a slice). */
    slice: sliceRecordSchema().optional(),
    /** Its write scope (scopes/writeScope.ts), when it has one: what it may change stays so after a restore. */
    scope: scopeRecordSchema().optional(),
    ended: z.array(endedRowSchema()).optional(),
    /** The agent's row number among its siblings, so restored siblings keep their order. */
    order: z.number(),
    past: pastSchema().optional(),
  }),
);

const liveRunSchema = once(() =>
  z.object({
    mode: z.enum(['interactive', 'scheduled', 'webhook', 'autonomous']),
    /** The run's limits as they stood (a raise included). */
    limits: z.record(z.string(), z.number()),
    tokensUsed: z.number().nonnegative(),
    turnsUsed: z.number().nonnegative(),
    modelCallsUsed: z.number().nonnegative(),
    cost: z.number().nonnegative(),
    unpricedTokens: z.number().nonnegative(),
    /** The wall time the run had used, in seconds: a restored run's goes on from it (none in a record written before it was kept). */
    wallSeconds: z.number().nonnegative().optional(),
    /** The run's own model (the demo's scripted one), by id; none when it used the window's. */
    model: z.string().optional(),
    /** The folder of the run's own (a worktree run). */
    folder: z.string().optional(),
    worktree: worktreeLinkSchema().optional(),
    /** The pause of a spent budget, which a raise takes off. */
    paused: holdSchema().optional(),
  }),
);

export const liveRootRecordSchema = once(() =>
  z.object({
    version: z.literal(LIVE_RECORD_VERSION),
    root: z.string().min(1),
    writtenAt: z.string(),
    /** The process that wrote it, as its window's lock names it. */
    pid: z.number().int(),
    run: liveRunSchema(),
    /** The root first, then its live continuable descendants, each after its parent. */
    agents: z.array(liveAgentSchema()).min(1),
  }),
);

export type LiveRootRecord = z.infer<ReturnType<typeof liveRootRecordSchema>>;
export type LiveAgentRecord = LiveRootRecord['agents'][number];
export type LiveRunRecord = LiveRootRecord['run'];
export type EndedRowRecord = NonNullable<LiveAgentRecord['ended']>[number];
export type PastRecord = NonNullable<LiveAgentRecord['past']>;
export type SliceRecord = NonNullable<LiveAgentRecord['slice']>;
export type WorktreeLinkRecord = NonNullable<LiveRunRecord['worktree']>;
