import type { AgentDefinition } from '../definitions/types';
import { ArborError } from '../errors';
import type { Agent, TurnEnd, TurnEngine } from '../agents/agent';
import type { AgentRegistry } from '../agents/registry';
import type { OnRuntimeEvents } from '../agents/runtimeEvent';
import type { Disposable } from '../events';
import type { SessionSnapshot } from '../agents/sessionSnapshot';
import { Activation, newActivation } from './activation';
import { interruptTarget, type InterruptAuthority, type InterruptResult } from './interrupt';
import { formatReport, reportOf } from './report';
import type { BranchScopeRequest } from '../scopes/writeScope';

export { Activation };
export type { InterruptAuthority, InterruptResult };

/** What a settled child leaves behind so its direct parent can resume it cold: its session snapshot. */
export type SettledChild = SessionSnapshot;

/**
 * A settled child read back from durable sessions (after a reload, or because the manager keeps
 * none in memory). Its log is already open for writing; `discard` closes it when the resume is
 * abandoned (the caller went away or the runtime shut down while it was loading).
 */
export interface LoadedSettledChild extends SessionSnapshot {
  discard(): void;
}

export interface ContinuationHost {
  /** The live agents; a released child leaves it here, and whoever needs to know hears it on the channel. */
  readonly agents: AgentRegistry;
  /** The core's one event channel: the manager reacts to turn ends and to removals. */
  readonly onEvents: OnRuntimeEvents;
  /** Creates (but does not start) a live continuable agent for `parent`. */
  createContinuable(parent: Agent, label: string, resumeFrom?: SessionSnapshot, engine?: TurnEngine<Agent>, definition?: AgentDefinition, request?: BranchScopeRequest): Agent;
  /**
   * Durable sessions, when the runtime has them: the settled continuable child `targetId` of
   * `caller`, taken over for writing, or undefined when the store holds no continuable session
   * whose recorded parent is exactly `caller`. With a loader the manager keeps no settled child
   * in memory: the store is their memory, so memory stays flat however many children settle.
   */
  loadSettled?(caller: Agent, targetId: string): Promise<LoadedSettledChild | undefined>;
}

/**
 * What the editor and the tools may do with continuable subagents: deliver a message from the
 * exact direct parent, interrupt on behalf of the user or an ancestor, and look at live
 * Activations (for views and tests; never an authority). The continuation manager is it.
 */
export type SubagentService = Pick<ContinuationManager, 'interrupt' | 'deliver' | 'get' | 'isContinuable' | 'liveContinuableCount'>;

/**
 * Owns every continuable child's Activation: starts children, delivers messages from the exact
 * direct parent, reports each child turn to the parent, settles idle children, and interrupts a
 * child's current turn on behalf of a user or an ancestor.
 */
export class ContinuationManager {
  private readonly activations = new Map<string, Activation>();
  private readonly settled = new Map<string, SessionSnapshot>();
  /** Children being read back from durable sessions; a second message waits for the first. */
  private readonly resuming = new Map<string, Promise<void>>();
  private disposed = false;
  private readonly subscription: Disposable;

  constructor(private readonly host: ContinuationHost) {
    this.subscription = host.onEvents(['turn_end', 'agent_removed'], (event) => {
      if (event.type === 'agent_removed') this.agentRemoved(event.agent, event.parent);
      else if (event.agent.kind === 'continuable') this.childTurnEnded(event.agent, event.change.end);
    });
  }

  get(id: string): Activation | undefined {
    return this.activations.get(id);
  }

  /** True when `agent` is the exact agent of a live Activation. */
  isContinuable(agent: Agent): boolean {
    return this.activations.get(agent.id)?.agent === agent;
  }

  liveContinuableCount(): number {
    return this.activations.size;
  }

  /** True once `agent`'s own Activation has begun to be disposed (ended, settled or shut down). */
  isEnding(agent: Agent): boolean {
    const activation = this.activations.get(agent.id);
    return activation !== undefined && activation.agent === agent && activation.disposing;
  }

  /**
   * Start a continuable child of `parent` on `prompt`; returns the child at once. The parent
   * must be live and not ending (AGENT_DISPOSED), so every child has a parent and an ancestry.
   */
  start(parent: Agent, label: string, prompt: string, engine?: TurnEngine<Agent>, definition?: AgentDefinition, request?: BranchScopeRequest): Agent {
    if (this.disposed || !this.host.agents.isLive(parent) || parent.disposed || this.isEnding(parent)) {
      throw new ArborError('AGENT_DISPOSED', `"${parent.label}" has ended; it cannot start subagents.`);
    }
    const child = this.host.createContinuable(parent, label, undefined, engine, definition, request);
    this.activate(parent, child);
    sendFrom(parent, child, prompt);
    return child;
  }

  /**
   * Queue `message` for `targetId` from `caller`, which must be the child's exact direct parent.
   * A settled child of that parent is resumed cold with its conversation.
   */
  async deliver(caller: Agent, targetId: string, message: string): Promise<{ agentId: string; resumed: boolean }> {
    if (!this.host.agents.isLive(caller)) {
      throw new ArborError('SUBAGENT_UNAUTHORIZED', 'Only a live agent can send messages to its subagents.');
    }
    const activation = this.activations.get(targetId);
    if (!activation) return this.resumeCold(caller, targetId, message);
    if (activation.parent !== caller) {
      throw new ArborError('SUBAGENT_UNAUTHORIZED', `Agent ${targetId} is not your direct subagent; only its direct parent can send it messages.`);
    }
    return activation.inOrder(() => {
      if (this.activations.get(targetId) !== activation || activation.disposing) {
        return this.resumeCold(caller, targetId, message);
      }
      sendFrom(caller, activation.agent, message);
      return { agentId: targetId, resumed: false };
    });
  }

  /**
   * A continuable child put back after a reload (restore/): registered under its live parent,
   * with an Activation of its own again, so its parent's messages, its reports and Stops reach it
   * as before. `child` is made over its reopened session and is not live yet.
   */
  adopt(parent: Agent, child: Agent): void {
    if (this.disposed) throw new ArborError('AGENT_DISPOSED', 'Arbor is shutting down.');
    this.host.agents.add(child, { parent });
    this.activate(parent, child);
  }

  /** Stop only the live target's current turn (see interruptTarget for the rules). */
  interrupt(targetSessionId: string, authority: InterruptAuthority): InterruptResult {
    return interruptTarget(targetSessionId, authority, this.host.agents, this.activations.get(targetSessionId));
  }

  /** A child's turn ended: report to its parent, then settle it if it is done. */
  private childTurnEnded(agent: Agent, end: TurnEnd): void {
    const activation = this.activations.get(agent.id);
    if (!activation || activation.agent !== agent) return;
    void activation.inOrder(() => {
      // A stopped or held child is kept: it has work to go on with.
      const settles = this.canSettle(activation) && end.reason !== 'aborted' && !end.hold;
      this.report(activation, end, settles);
      if (settles) this.settle(activation);
    });
  }

  /** A live agent went away: its continuable parent may now be done. */
  private agentRemoved(agent: Agent, parent: Agent | undefined): void {
    if (!parent) return;
    const activation = this.activations.get(parent.id);
    if (!activation || activation.agent !== parent) return;
    void activation.inOrder(() => {
      if (this.activations.get(parent.id) !== activation) return;
      const last = parent.lastTurnEnd;
      if (this.canSettle(activation) && last && last.reason !== 'aborted' && !last.hold) {
        this.report(activation, undefined, true);
        this.settle(activation);
      }
    });
  }

  /**
   * End a continuable child at the user's request: its turn is aborted, its queue dropped and
   * its Activation released. Interrupts from now on are accepted no-ops.
   */
  end(agent: Agent): Promise<void> {
    const activation = this.activations.get(agent.id);
    if (!activation || activation.agent !== agent || activation.disposing) return Promise.resolve();
    activation.disposing = true;
    return activation.inOrder(() => this.release(activation, { dropQueue: true }));
  }

  /** Dispose every activation (runtime shutdown). */
  dispose(): void {
    this.disposed = true;
    this.subscription.dispose();
    for (const activation of [...this.activations.values()]) {
      activation.disposing = true;
      this.release(activation);
    }
    this.settled.clear();
  }

  private activate(parent: Agent, child: Agent): void {
    this.activations.set(child.id, newActivation(parent, child, this.host.agents, (a) => this.activationOf(a)));
    this.settled.delete(child.id);
  }

  /**
   * `agent`'s own live Activation, if it is a continuable child. It only shortens the walk of
   * newActivation: a continuable parent's live recorded ancestors are its live registry lineage.
   */
  private activationOf(agent: Agent): Activation | undefined {
    const activation = this.activations.get(agent.id);
    return activation && activation.agent === agent ? activation : undefined;
  }

  /** The child may settle: idle, nothing queued, no live children of its own, not already going. */
  private canSettle(activation: Activation): boolean {
    const agent = activation.agent;
    return (
      !this.disposed &&
      !activation.disposing &&
      // An external agent keeps its process and conversation until it is ended: a settled
      // session could only come back as a model agent.
      !agent.engine &&
      agent.status === 'idle' &&
      agent.pendingCount === 0 &&
      this.host.agents.liveChildCount(agent) === 0
    );
  }

  private report(activation: Activation, end: TurnEnd | undefined, settled: boolean): void {
    const child = activation.agent;
    const parent = activation.parent;
    const text = formatReport(reportOf(child.label, child.id, end, settled));
    if (!this.host.agents.isLive(parent)) {
      activation.keepUndelivered(text);
      return;
    }
    // A stopped child's report must not restart a parent: it waits for the parent's next turn.
    // Nor must a child whose turn a hold ended (raising the limit wakes the agents the pause stopped),
    // unless it ended BLOCKED: an unattended branch at its cap is done, and its parent goes on.
    const held = end?.reason === 'aborted' || (end?.hold !== undefined && end.reason !== 'blocked');
    const wake = held ? false : 'unless-parked';
    parent.send(text, { from: 'child', atNextStep: true, wake });
  }

  private settle(activation: Activation): void {
    activation.disposing = true;
    const agent = activation.agent;
    if (!this.host.loadSettled) {
      this.settled.set(agent.id, { log: agent.log, conversation: agent.conversation, turns: agent.turnCount, usage: { ...agent.usage } });
    }
    this.release(activation);
  }

  private release(activation: Activation, options: { dropQueue?: boolean } = {}): void {
    if (this.activations.get(activation.agent.id) === activation) this.activations.delete(activation.agent.id);
    activation.agent.dispose(options);
    this.host.agents.remove(activation.agent);
  }

  /**
   * Resume a settled child of `caller` with its conversation: from memory when this process
   * settled it, else from durable sessions. The same rules either way: only the exact direct
   * parent (by its session id) may resume a child, and only through a message (an interrupt
   * never resumes anything). Messages that arrive while the child is read back wait for it.
   */
  private async resumeCold(caller: Agent, targetId: string, message: string): Promise<{ agentId: string; resumed: boolean }> {
    const pending = this.resuming.get(targetId);
    if (pending) {
      await pending;
      return this.deliver(caller, targetId, message);
    }
    const resume = this.resumeSettled(caller, targetId, message);
    const done = resume.then(
      () => undefined,
      () => undefined,
    );
    this.resuming.set(targetId, done);
    void done.then(() => {
      if (this.resuming.get(targetId) === done) this.resuming.delete(targetId);
    });
    return resume;
  }

  private async resumeSettled(caller: Agent, targetId: string, message: string): Promise<{ agentId: string; resumed: boolean }> {
    if (this.disposed) throw new ArborError('AGENT_DISPOSED', 'Arbor is shutting down.');
    let settled = this.settled.get(targetId);
    if (!settled && this.host.loadSettled) {
      const loaded = await this.host.loadSettled(caller, targetId);
      if (loaded && (this.disposed || !this.host.agents.isLive(caller))) {
        // The runtime shut down or the parent ended while the session was read back.
        loaded.discard();
        if (this.disposed) throw new ArborError('AGENT_DISPOSED', 'Arbor is shutting down.');
        throw new ArborError('SUBAGENT_UNAUTHORIZED', 'Only a live agent can send messages to its subagents.');
      }
      if (loaded && loaded.log.header.parentSession !== caller.id) loaded.discard();
      else settled = loaded;
    }
    if (settled?.log.header.external) {
      if ('discard' in settled) (settled as LoadedSettledChild).discard();
      throw new ArborError('EXTERNAL_NOT_RESUMABLE', `Subagent ${targetId} was the external agent ${settled.log.header.external}, which has ended; start it again with start_external_agent.`);
    }
    if (!settled || settled.log.header.parentSession !== caller.id) {
      throw new ArborError(
        'SUBAGENT_NOT_FOUND',
        `No subagent ${targetId} of yours is live or resumable. Use list_agents to see your subagents, or start a new one.`,
      );
    }
    const child = this.host.createContinuable(caller, settled.log.header.label, settled);
    this.activate(caller, child);
    sendFrom(caller, child, message);
    return { agentId: targetId, resumed: true };
  }
}

/**
 * A parent's message to its child. A parent held by a branch Stop (Stop All Below, Stop All)
 * can still finish a tool call its stopped turn had begun; what that call creates or sends then
 * joins the stopped branch: the child is held and the message waits in its parked queue.
 */
function sendFrom(parent: Agent, child: Agent, text: string): void {
  if (parent.isHeld) {
    child.hold();
    child.send(text, { from: 'parent', wake: false });
  } else child.send(text, { from: 'parent' });
}
