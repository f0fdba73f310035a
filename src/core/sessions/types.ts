import type { ArborError, CancelCause } from '../errors';
import type { ToolCall } from '../models/types';

/** Bumped when the on-disk shape changes incompatibly; newer files load as diagnostics. */
export const SESSION_FORMAT_VERSION = 1;

export type AgentKind = 'root' | 'one-shot' | 'continuable';
export type InteractionMode = 'interactive' | 'scheduled' | 'webhook' | 'autonomous';

/** The first line of every session log. Lineage here is history, never authority. */
export interface SessionHeader {
  type: 'header';
  version: number;
  id: string;
  createdAt: string;
  parentSession?: string;
  delegationDepth: number;
  kind: AgentKind;
  label: string;
  workspace?: string;
  interactionMode: InteractionMode;
  /** When this session was reopened from another one (resume), the session it continues. */
  resumedFrom?: string;
  /** Set when an external agent (an Agent Client Protocol process) ran it: the agent's configured name. */
  external?: string;
  /** The agent definition it was started with: its name and the file it came from. */
  definition?: { name: string; file: string };
}

/**
 * How a turn ended. `budget`: a limit of the agent or the turn (turns per agent, model calls per
 * turn, a tool's limit) ended it, and the agent may go on. `paused`: a hold of the run or the
 * agent (a spent run budget, a runaway guard) ended it, and the agent waits for that hold's
 * release. Files written before `paused` existed say `budget` for both; they load as written.
 */
export type TurnEndReason = 'completed' | 'aborted' | 'blocked' | 'error' | 'budget' | 'paused' | 'interrupted';

export interface QuestionOption {
  label: string;
  description?: string;
}
export interface Question {
  id: string;
  question: string;
  header?: string;
  options: QuestionOption[];
  multiSelect?: boolean;
}
export interface Answer {
  id: string;
  selected: string[];
  custom?: string;
}

/**
 * `allow-session`: the human allowed the asking agent until it ends; `allow-branch`: the human
 * allowed an agent and the agents it starts (the asker or one above it) until that agent ends; `allow-workspace` /
 * `allow-always`: the human allowed it and added a rule; `allow-rule`: a remembered rule allowed
 * it without asking.
 */
export type ApprovalDecision = 'allow-once' | 'allow-session' | 'allow-branch' | 'allow-workspace' | 'allow-always' | 'allow-rule' | 'deny';

/** One line of a session log after the header. `at` is an ISO timestamp. */
export type SessionEvent =
  | { type: 'user_message'; at: string; text: string; from: 'user' | 'parent' | 'child' | 'system'; queuedId?: number }
  /** A message entered the inbox; it becomes a user_message (with this queuedId) when a turn claims it. */
  | { type: 'queued'; at: string; id: number; text: string; from: 'user' | 'parent' | 'child' | 'system'; atNextStep?: boolean }
  /** Queued messages that will never run (a cancel that clears the queue, or the user ending the agent). */
  | { type: 'queue_dropped'; at: string; ids: number[] }
  | { type: 'assistant_text'; at: string; text: string }
  | { type: 'tool_call'; at: string; call: ToolCall }
  | { type: 'tool_result'; at: string; toolCallId: string; name: string; content: string; isError?: boolean }
  | { type: 'turn_start'; at: string; turn: number }
  | { type: 'turn_end'; at: string; turn: number; reason: TurnEndReason; cause?: CancelCause; message?: string }
  | { type: 'interrupt'; at: string; authority: 'user' | 'ancestor'; by?: string }
  | {
      type: 'question';
      at: string;
      questions: Question[];
      /** The tool call waiting for the answer: a session resumed while it waited asks again. */
      toolCallId?: string;
      intent?: 'clarify' | 'plan-approval' | 'approval';
    }
  | { type: 'answer'; at: string; answers?: Answer[]; error?: string }
  | {
      type: 'approval';
      at: string;
      action: string;
      detail?: string;
      decision: ApprovalDecision;
      reason: string;
      /** The rule that allowed it (or that the human added), as written: "command: npm test". */
      rule?: string;
      ruleScope?: 'workspace' | 'user' | 'setting';
    }
  | { type: 'usage'; at: string; inputTokens: number; outputTokens: number }
  /**
   * An external agent opened (or reopened) its protocol session: the agent's own id for it, and
   * whether the agent can load it again later (`session/load`), which is what Resume needs.
   */
  | { type: 'external_session'; at: string; sessionId: string; loadSession: boolean }
  /** The agent's plan, replaced whole (update_plan, or an external agent's plan update). */
  | { type: 'plan'; at: string; items: PlanItem[] };

export type PlanStatus = 'pending' | 'in_progress' | 'done';
/** One step of an agent's plan. */
export interface PlanItem {
  step: string;
  status: PlanStatus;
}

export type SessionEventType = SessionEvent['type'];

/**
 * Where an agent writes its history. The runtime uses an in-memory log by default; the
 * durable JSONL store implements the same interface.
 */
export interface SessionLog {
  readonly header: SessionHeader;
  /** Every event appended so far, in order (the transcript reads this). */
  readonly events: readonly SessionEvent[];
  append(event: SessionEvent): void;
  /** Resolves when everything appended so far is durable. */
  flush(): Promise<void>;
  /**
   * `flush` with a callback, where a log offers it: `done(undefined)` once everything appended
   * so far is durable, `done(error)` if its write failed. A turn's end flushes without a promise.
   */
  whenFlushed?(done: (error: ArborError | undefined) => void): void;
  /**
   * Problems met after `append` returned, which no caller can catch: an event refused because
   * it does not match the session format, a write that failed for good. The agent that owns
   * the log shows them; `undefined` means the problem reported before is solved (a failed
   * write succeeded later). Logs that cannot fail (in memory) do not implement it. Returns
   * what stops the reports to that listener.
   */
  onProblem?(listener: (problem: ArborError | undefined) => void): (() => void) | void;
}

export interface SessionLogFactory {
  create(header: SessionHeader): SessionLog;
}
