import { isoNow } from '../clock';
import type { CancelCause } from '../errors';
import type { ChatMessage, ToolCall } from '../models/types';
import type { AgentQueue } from './agentQueue';
import type { SessionLog } from '../sessions/types';
import { turnEndEvent } from './agentLog';
import { newHold, type GateStep, type Hold } from './holds';
import type { InboxItem } from './inbox';
import { TurnAbort, whenAborted } from './turnAbort';
import { runEngineTurn, type TurnEngine } from './turnEngine';
import { TurnLoop, type TurnEnd, type TurnHost, type TurnOwner } from './turnLoop';

/** What the turns need of their agent (the Agent is one; a type of its own keeps agent.ts out of this file's imports). */
export interface TurnsAgent<A> extends TurnOwner {
  readonly engine: TurnEngine<A> | undefined;
  readonly disposed: boolean;
  readonly log: Pick<SessionLog, 'flush' | 'whenFlushed'>;
  lastTurnEnd: TurnEnd | undefined;
  gate(step: GateStep): Hold | undefined;
}

/** The changes the turns report (a subset of AgentChange). */
type TurnChange =
  | { type: 'status' }
  | { type: 'turn_start'; turn: number }
  | { type: 'turn_end'; end: TurnEnd }
  | { type: 'usage' }
  | { type: 'activity' }
  | { type: 'stop_overdue'; graceMs: number };

/** What the turns need of the runtime that hosts the agent (the AgentHost is one). */
export interface TurnsHost<A extends TurnOwner> extends TurnHost<A> {
  agentChanged(agent: A, change: TurnChange): void;
  onProblem(problem: string, err: unknown): void;
}

/** The running turn, with its abort (made per turn: an idle agent holds none). */
interface RunningTurn {
  readonly turn: number;
  readonly startedAt: number;
  readonly abort: TurnAbort;
  stopping?: CancelCause;
}

/** Changes without data are shared, not allocated per notification (the agent's too). */
export const STATUS_CHANGED: { readonly type: 'status' } = Object.freeze({ type: 'status' });
/** Conversations up to this long are kept at their size at rest: for them the room push keeps is most of the array. */
const SHORT_CONVERSATION = 16;

/**
 * An agent's turns: its conversation, the turn running now and the step from one turn to the
 * next. A turn runs in the model turn loop (turnLoop.ts) or, for an external agent, its engine
 * (turnEngine.ts); its end is recorded, flushed and reported, then the next message is claimed.
 *
 * Invariants: at most one turn runs at a time, and nothing else starts one (a send, a resumed
 * wait and a turn end all come here); a turn's end is in the log before the host hears of it;
 * when no turn runs and none can be claimed the agent is reported idle and `whenIdle` waiters
 * resolve, in that order; the turn's start waits for no frame of its own, so a send returns at
 * once. At rest a short conversation is copied to its size (an array grown by push keeps room
 * for 17 items; the next turn's first push makes room again).
 */
export class AgentTurns<A extends TurnsAgent<A>> {
  running: RunningTurn | undefined;
  private modelCalls = 0;
  /** An engine agent's last turn only reported a hold the run's gate found (engineHeld); reset by a turn that claims. */
  private reportedGateHold = false;
  private idleWaiter: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(
    /** The agent and its host, for what reads a restored agent's past into these turns (deferredPast.ts). */
    readonly agent: A,
    readonly host: TurnsHost<A>,
    private readonly queue: AgentQueue,
    /** The conversation the model sees; kept at its size while the agent rests. */
    public messages: ChatMessage[],
    /** Turns started so far (a reopened session's included). */
    public count: number,
  ) {}

  /** Starts a turn on the next unclaimed message, or reports the agent idle when there is none. */
  startNext(): void {
    if (this.running) return;
    if (this.engineHeld()) return;
    const next = this.queue.claimForTurn(this.agent.disposed);
    if (!next) return this.rest();
    this.reportedGateHold = false;
    void this.runAndFinish(next);
  }

  /** No turn runs and none can start: the agent is reported idle and `whenIdle` waiters resolve. */
  private rest(): void {
    if (this.messages.length <= SHORT_CONVERSATION) this.messages = this.messages.slice();
    const waiter = this.idleWaiter;
    this.idleWaiter = undefined;
    this.host.agentChanged(this.agent, STATUS_CHANGED);
    waiter?.resolve();
  }

  /**
   * Whether an engine agent (an external agent) may not start its next turn, and so rests. Its
   * turn cannot be stopped between the model calls it makes itself, so a spent run or branch
   * budget (its turns and model calls included: each prompt turn counts as one of each) keeps its
   * next message queued for the raise, where a model's turn starts and ends at once. A budget the
   * run's gate finds spent before the guard has paused anyone ends one turn that claims nothing,
   * so the guard hears of it as of any held turn; a hold already on the agent is marked as having
   * held back work, so that what releases it wakes the agent.
   */
  private engineHeld(): boolean {
    const { agent, queue } = this;
    if (!agent.engine || agent.disposed || queue.size === 0 || queue.isParked) return false;
    const own = queue.heldAt('turn');
    if (own) {
      // Work waits behind the hold: its release (a raise, a person's message) wakes the agent for it.
      if (!own.interrupted) queue.put({ ...own, interrupted: true });
      this.rest();
      return true;
    }
    const found = agent.gate('turn') ?? agent.gate('modelCall');
    if (!found) return false;
    if (this.reportedGateHold) this.rest();
    else {
      this.reportedGateHold = true;
      const { turn } = this.begin();
      agent.append({ type: 'turn_start', at: isoNow(), turn });
      this.host.agentChanged(agent, { type: 'turn_start', turn });
      this.finish({ turn, reason: 'paused', message: found.detail ?? 'a run budget is spent', finalText: '', hold: found });
    }
    return true;
  }

  /** A new turn is running: its number and its abort. */
  private begin(): RunningTurn {
    this.running = { turn: ++this.count, startedAt: Date.now(), abort: new TurnAbort() };
    this.host.agentChanged(this.agent, STATUS_CHANGED);
    return this.running;
  }

  /** Runs again, in a new turn, a call a resumed session waited on for the human (unless a turn runs or the agent ended). */
  continueWaitingCall(call: ToolCall): void {
    void (this.agent.disposed || this.running ? undefined : this.runAndFinish({ resumedCall: call }));
  }

  /**
   * Aborts the running turn (Agent.cancel): its queue is held (`stop`) with `keepInbox`, cleared
   * otherwise. A turn already aborted is not signalled twice. Returns whether a turn was running.
   */
  cancel(cause: CancelCause, keepInbox: boolean): boolean {
    const turn = this.running;
    if (!turn) return false;
    if (keepInbox) this.queue.put(newHold('stop'));
    else this.dropQueue();
    if (!turn.abort.aborted) {
      turn.stopping = cause;
      turn.abort.abort(cause);
      this.host.agentChanged(this.agent, STATUS_CHANGED);
    }
    return true;
  }

  /** Clears the unclaimed queue, recording what was dropped (a queue dropped on purpose stays dropped on reopen). */
  dropQueue(): void {
    if (this.queue.size === 0) return;
    this.agent.append({ type: 'queue_dropped', at: isoNow(), ids: this.queue.drop() });
  }

  /** Resolves when no turn is running and none is about to start. */
  whenIdle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    if (!this.idleWaiter) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.idleWaiter = { promise, resolve };
    }
    return this.idleWaiter.promise;
  }

  /** Calls `callback` once when `signal` aborts, through the running turn's fan-out when there is one. */
  whenTurnAborted(signal: AbortSignal, callback: () => void): () => void {
    const turn = this.running;
    return turn ? turn.abort.whenAborted(signal, callback) : whenAborted(signal, callback);
  }

  /** Starts the turn; its end is recorded when the loop settles (no frame of its own waits for it). */
  private runAndFinish(first: InboxItem | { resumedCall: ToolCall }): Promise<void> {
    const { agent, host } = this;
    const { turn, abort } = this.begin();
    if (agent.engine && !('resumedCall' in first)) {
      return runEngineTurn(agent.engine, agent, first, turn, abort.signal, (change) => host.agentChanged(agent, change)).then((end) => this.finish(end));
    }
    const loop = new TurnLoop<A>(agent, host, this.queue, abort, this.modelCalls);
    return loop.run(first, turn).then((end) => {
      this.modelCalls = loop.modelCalls;
      this.finish(end);
    });
  }

  private finish(end: TurnEnd): void {
    const { agent, host } = this;
    agent.append(turnEndEvent(end));
    agent.lastTurnEnd = end;
    this.running?.abort.end(!agent.disposed);
    this.running = undefined;
    const id = agent.id; // not the agent: the write may finish long after it is gone
    const log = agent.log;
    if (log.whenFlushed) log.whenFlushed((err) => err && host.onProblem(`Arbor: could not save session ${id}`, err));
    else log.flush().catch((err) => host.onProblem(`Arbor: could not save session ${id}`, err));
    host.agentChanged(agent, { type: 'turn_end', end });
    this.startNext();
  }
}
