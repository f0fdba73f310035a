import type * as acp from '@agentclientprotocol/sdk';
import type { Agent, EngineNotice, EngineTurn as AnyEngineTurn, TurnEngine, TurnEnd } from '../agents/agent';
import { isoNow } from '../clock';
import { abortCauseOf, messageOf } from '../errors';
import type { AcpClientHandlers } from './acpConnection';
import type { SubagentState, SubagentUpdate } from './acpSubagents';
import type { ExternalAgentClient, StartChild } from './clientServices';
import { TurnTranscript } from './turnTranscript';

type EngineTurn = AnyEngineTurn<Agent>;

/** What a child's node needs of its parent's protocol session. */
export interface ChildLink {
  /** `session/cancel` for this child's session. */
  cancel(childSessionId: string): void;
}

/**
 * The subagents an external agent announces (`subagent_update`), as nested nodes under it: each
 * is an Arbor agent whose turns are the child's foreground work, with its own transcript (the
 * updates carrying its session id), state, usage and Stop.
 *
 * Invariants:
 * - a child is made once, on the first update naming its session; later updates patch it;
 * - its turn runs while the agent says the child is `running` (or `requires_action`) and ends
 *   when it says `idle` (the stop reason `cancelled`, or a Stop, makes it aborted);
 * - Stop on a child sends `session/cancel` for that child only, and only when the agent
 *   advertised `cancel` for it; a child without it has no Stop, and its node says why (its
 *   parent's Stop, or Stop All Below on the parent, still stops its work through the parent);
 * - when the parent's session is lost, every child's turn ends and the children end.
 */
export class ExternalSubagents {
  private readonly children = new Map<string, ChildEngine>();

  constructor(
    private readonly parentName: string,
    private readonly startChild: StartChild | undefined,
    private readonly link: ChildLink,
  ) {}

  /** The child whose session this is, if the agent announced it. */
  child(sessionId: string): ChildEngine | undefined {
    return this.children.get(sessionId);
  }

  update(parent: Agent, update: SubagentUpdate): void {
    let child = this.children.get(update.sessionId);
    if (!child) {
      if (!this.startChild) return;
      child = new ChildEngine(this.parentName, update.sessionId, this.link);
      child.patch(update);
      this.children.set(update.sessionId, child);
      const label = update.title || `${this.parentName} subagent`;
      const prompt = update.description || update.title || `A subagent ${this.parentName} started.`;
      child.expect(prompt);
      try {
        child.agent = this.startChild(parent, label, prompt, child);
      } catch (err) {
        // A run's limits (live children, delegation depth) can refuse the node: the work goes on unseen, and the transcript says so.
        parent.append({ type: 'assistant_text', at: isoNow(), text: `${this.parentName} started a subagent, "${label}", that Arbor cannot show: ${messageOf(err)}` });
      }
      return;
    }
    child.patch(update);
  }

  /**
   * The client's handlers with each subagent's traffic taken to it: updates on a child's session
   * go to its transcript, and its permission requests are asked as its parent's, named for the
   * child (the approval's first line says who asks); the rest goes to `own`.
   */
  route(client: ExternalAgentClient, own: { update(update: acp.SessionUpdate): void; permission(call: acp.ToolCallUpdate): void }): AcpClientHandlers {
    const handlers = client.handlers((update, sessionId) => {
      const child = this.children.get(sessionId);
      if (child) child.sessionUpdate(update);
      else own.update(update);
    });
    return {
      ...handlers,
      subagentUpdate: (_parent, update) => this.update(client.agent, update),
      requestPermission: (params, signal) => {
        const child = this.children.get(params.sessionId);
        if (!child) {
          own.permission(params.toolCall);
          return handlers.requestPermission(params, signal);
        }
        child.permission(params.toolCall);
        const title = `${child.agent?.label ?? 'A subagent'} (subagent of ${this.parentName}): ${params.toolCall.title ?? 'a tool call'}`;
        return handlers.requestPermission({ ...params, toolCall: { ...params.toolCall, title } }, signal);
      },
    };
  }

  /** The parent's session is gone: its children's work is too. */
  lost(): void {
    for (const child of this.children.values()) child.end();
    this.children.clear();
  }
}

export class ChildEngine implements TurnEngine<Agent> {
  readonly name: string;
  agent: Agent | undefined;
  stoppable = false;
  notice: EngineNotice | undefined;
  private state: SubagentState | undefined;
  private transcript: TurnTranscript | undefined;
  private finish: ((state: SubagentState | undefined) => void) | undefined;
  private ended = false;
  /** The texts of the turns Arbor started for the child's own work, not yet begun. */
  private readonly ownTurns: string[] = [];

  constructor(
    private readonly parentName: string,
    readonly sessionId: string,
    private readonly link: ChildLink,
  ) {
    this.name = `${parentName} subagent`;
  }

  patch(update: SubagentUpdate): void {
    if (update.capabilities !== undefined) {
      this.stoppable = update.capabilities?.cancel != null;
      this.notice = this.stoppable
        ? undefined
        : { text: 'no Stop of its own', detail: `${this.parentName} does not let Arbor cancel this subagent on its own (it does not advertise cancel for it): Stop ${this.parentName} to stop its work.` };
      this.agent?.engineChanged();
    }
    if (update.state === undefined || update.state === null) return;
    this.state = update.state;
    const working = update.state.state === 'running' || update.state.state === 'requires_action';
    if (working && this.agent && this.agent.status === 'idle' && !this.finish) {
      const text = `(${this.parentName} gave it more work)`;
      this.expect(text);
      this.agent.send(text, { from: 'parent' });
    }
    if (update.state.state === 'idle') this.finish?.(update.state);
  }

  /** What the agent streams on this child's session. */
  sessionUpdate(update: acp.SessionUpdate): void {
    this.transcript?.update(update);
  }

  permission(call: acp.ToolCallUpdate): void {
    this.transcript?.permission(call);
  }

  /** A turn Arbor starts for the child's own work (its task, more work); any other is a person's message. */
  expect(text: string): void {
    this.ownTurns.push(text);
  }

  async runTurn(turn: EngineTurn): Promise<TurnEnd> {
    const own = this.ownTurns.indexOf(turn.text);
    if (own < 0) {
      const text = `A message cannot reach this subagent: ${this.parentName} gives its subagents their work itself. Send it to ${this.parentName} instead.`;
      turn.agent.append({ type: 'assistant_text', at: isoNow(), text });
      return { turn: turn.turn, reason: 'blocked', message: text, finalText: '' };
    }
    this.ownTurns.splice(own, 1);
    const transcript = (this.transcript = new TurnTranscript(turn.agent));
    const done = new Promise<SubagentState | undefined>((resolve) => (this.finish = resolve));
    const onAbort = (): void => {
      if (abortCauseOf(turn.signal) === 'disposed') return this.finish?.(undefined);
      if (this.stoppable) this.link.cancel(this.sessionId);
    };
    turn.signal.addEventListener('abort', onAbort, { once: true });
    if (this.ended) this.finish?.(undefined);
    // An update that said idle before this turn began (the child finished at once) ends it now.
    else if (this.state?.state === 'idle') this.finish?.(this.state);
    try {
      const end = await done;
      transcript.close();
      if (end?.usage) turn.recordUsage(end.usage.inputTokens, end.usage.outputTokens);
      if (turn.signal.aborted || end?.stopReason === 'cancelled') return { turn: turn.turn, reason: 'aborted', cause: abortCauseOf(turn.signal) ?? 'user', finalText: transcript.finalText };
      if (!end) return { turn: turn.turn, reason: 'error', code: 'EXTERNAL_AGENT_CRASHED', message: `${this.parentName} ended, and this subagent's work with it.`, finalText: transcript.finalText };
      return { turn: turn.turn, reason: 'completed', finalText: transcript.finalText };
    } finally {
      turn.signal.removeEventListener('abort', onAbort);
      this.finish = undefined;
      this.transcript = undefined;
    }
  }

  /** The parent's session is gone. */
  end(): void {
    this.ended = true;
    this.finish?.(undefined);
  }

  dispose(): void {
    this.end();
  }
}
