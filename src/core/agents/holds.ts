import { isoNow } from '../clock';

/**
 * Holds: every reason an agent is kept from running, as one small value with a reason and the
 * rule that releases it. "Why is this agent not running?" is answered by its holds alone.
 *
 * Invariants:
 * - A hold is plain data (strings and one flag), so it can be written to the session as it is.
 * - Each reason has one release rule (RELEASE): `stop`, `branch` and `reload` end with a waking
 *   send; `budget` with a raise of the run's limits; `slice` (a branch's own budget is spent) with
 *   a raise of that slice alone; `runaway` with a person's message (or the person's Resume).
 * - Queue holds (`stop`, `branch`, `reload`) keep the queue from being claimed for a new turn.
 *   `stop` and `reload` lapse when the agent is idle with nothing queued; `branch`, and a
 *   `reload` that cut a turn short (the window closed), stay until a waking send, so a report
 *   that arrives later only queues.
 * - Run holds (`budget`, `slice`, `runaway`) let a turn start but end it at once, before any model call
 *   and before the tools of a reply that streamed in: the message it claimed stays in the
 *   conversation, the turn ends like a Stop.
 * - An agent holds one hold per reason; holding a reason it already holds changes nothing, except
 *   that it may mark the hold `interrupted`.
 * - An agent without a hold carries no list at all (see Agent), so an idle agent stays small.
 */

export type HoldReason = 'stop' | 'branch' | 'reload' | 'budget' | 'slice' | 'runaway';
export type HoldRelease = 'waking-send' | 'raise' | 'slice-raise' | 'person-message';

export interface Hold {
  readonly reason: HoldReason;
  /** When the hold was put (ISO 8601). */
  readonly since: string;
  readonly release: HoldRelease;
  /** What was hit, in words: the budget that is spent, what a runaway guard found. */
  readonly detail?: string;
  /** An unattended root at its cap: its BLOCKED report, the final result its held turn ends with. */
  readonly report?: string;
  /** The hold cut work short (a turn was running, or one ended against it): its release resumes the agent. */
  readonly interrupted?: true;
  /** A `slice` hold: the session id of the agent whose slice (budgets/slices.ts) is spent, the top of the held branch. */
  readonly slice?: string;
}

export const RELEASE: Readonly<Record<HoldReason, HoldRelease>> = Object.freeze({
  stop: 'waking-send',
  branch: 'waking-send',
  reload: 'waking-send',
  budget: 'raise',
  slice: 'slice-raise',
  runaway: 'person-message',
});

/**
 * Where the gate is asked: `claim` before a new turn takes a queued message; `turn` and
 * `modelCall` inside the turn loop before each; `tools` before the tools of a reply that streamed in.
 */
export type GateStep = 'claim' | 'turn' | 'modelCall' | 'tools';

/** What budgets and guards put on an agent and take off it: the dependency points from them to agents. */
export interface HoldTarget {
  readonly holds: readonly Hold[];
  putHold(hold: Hold): void;
  /** Takes off every hold that `rule` releases; returns them. */
  releaseHolds(rule: HoldRelease): readonly Hold[];
}

/** A new hold put now. A Stop puts one before its abort reaches the model, so it allocates no more than the hold. */
export function newHold(reason: HoldReason, extra?: { detail?: string; report?: string; interrupted?: boolean; slice?: string }): Hold {
  const hold: { -readonly [K in keyof Hold]: Hold[K] } = { reason, since: isoNow(), release: RELEASE[reason] };
  if (extra === undefined) return hold;
  if (extra.detail !== undefined) hold.detail = extra.detail;
  if (extra.report !== undefined) hold.report = extra.report;
  if (extra.interrupted) hold.interrupted = true;
  if (extra.slice !== undefined) hold.slice = extra.slice;
  return hold;
}

export function isQueueHold(hold: Hold): boolean {
  return hold.reason === 'stop' || hold.reason === 'branch' || hold.reason === 'reload';
}

/**
 * A Stop's and a reload's hold lapse when the agent is idle with nothing queued: the next message
 * starts a turn as usual. A reload that cut a turn short stays until that turn is continued.
 */
export function lapsesWhenEmpty(hold: Hold): boolean {
  return hold.reason === 'stop' || (hold.reason === 'reload' && !hold.interrupted);
}

/** The holds that say most about the agent come first: what the person has to do before a Send is enough. */
const ORDER: readonly HoldReason[] = ['budget', 'slice', 'runaway', 'branch', 'stop', 'reload'];
/** The run holds in the order the turn loop meets them: a spent run before one agent's guard. */
const RUN_ORDER: readonly HoldReason[] = ['budget', 'slice', 'runaway'];
const QUEUE_ORDER: readonly HoldReason[] = ['branch', 'stop', 'reload'];

/** The one hold a view names for the agent, or undefined when it has none. */
export function primaryHold(holds: readonly Hold[]): Hold | undefined {
  return first(holds, ORDER);
}

/** The hold of `holds` that stops `step`, if any (the run's own gate is asked by the agent). */
export function holdAt(holds: readonly Hold[], step: GateStep): Hold | undefined {
  return first(holds, step === 'claim' ? QUEUE_ORDER : RUN_ORDER);
}

// The lookups below are plain loops: they run on every Stop, claim and send, where a callback
// per lookup showed in the abort's profile.
function first(holds: readonly Hold[], order: readonly HoldReason[]): Hold | undefined {
  if (holds.length === 0) return undefined;
  for (let r = 0; r < order.length; r++) {
    const i = holdIndex(holds, order[r]);
    if (i >= 0) return holds[i];
  }
  return undefined;
}

/** Where the hold of `reason` is in `holds`; -1 when there is none (one hold per reason). */
export function holdIndex(holds: readonly Hold[], reason: HoldReason): number {
  for (let i = 0; i < holds.length; i++) if (holds[i].reason === reason) return i;
  return -1;
}

export const NO_HOLDS: readonly Hold[] = Object.freeze([]);

/** How a hold is said, the same in the Agents view, the conversation view and History. */
export interface HoldDescription {
  /** A few words for a row: "stopped", "run paused: budget spent". */
  readonly text: string;
  /** A sentence that says what released it. */
  readonly detail: string;
}

export function describeHold(hold: Hold): HoldDescription {
  switch (hold.reason) {
    case 'stop':
      return { text: 'stopped', detail: 'Stopped: its queued messages wait, and the next message you send resumes them in order.' };
    case 'reload':
      return hold.interrupted
        ? { text: 'interrupted (window closed)', detail: 'The window closed while it was working: what it had streamed and the tool results it had received are kept. Resume it, or send it a message, to continue.' }
        : { text: 'stopped', detail: 'Reopened with queued messages: they wait, and the next message you send resumes them in order.' };
    case 'branch':
      return { text: 'stopped', detail: "Stopped with its branch: a subagent's report only queues, and the next message you send (or its parent sends) resumes it." };
    case 'budget':
      return { text: 'run paused: budget spent', detail: `Paused: ${hold.detail ?? 'a run budget is spent'}. Raise the limit to go on.` };
    case 'slice':
      return { text: 'branch paused: its budget spent', detail: `Paused with its branch: ${hold.detail ?? 'its budget is spent'}. Raise limit on its top agent to go on.` };
    case 'runaway':
      return { text: 'paused by a runaway guard', detail: `Paused: ${hold.detail ?? 'a runaway guard paused it'}. Send it a message to go on.` };
  }
}
