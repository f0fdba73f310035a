import type * as acp from '@agentclientprotocol/sdk';
import type { Agent, EngineTurn as AnyEngineTurn, TurnEngine, TurnEnd } from '../agents/agent';

type EngineTurn = AnyEngineTurn<Agent>;
import { abortCauseOf, asArborError, isArborError } from '../errors';
import type { ToolCall } from '../models/types';
import { AcpSession, type AcpAgentInfo } from './acpConnection';
import { ExternalAgentClient, type ExternalAgentServices } from './clientServices';
import type { ExternalAgentConfig } from './config';

/** How long a stopped external agent may take to end its turn before Arbor offers to end it. */
export const DEFAULT_STOP_GRACE_MS = 10_000;

export interface ExternalEngineOptions {
  config: ExternalAgentConfig;
  services: ExternalAgentServices;
  /** The folder the agent works in (its run's folder, else the workspace folder). */
  cwd: string;
  /** Secrets from the editor's secret storage, added to the agent's environment. */
  secretEnv?: Record<string, string>;
  stopGraceMs?: number;
  startTimeoutMs?: number;
  /** The agent's own id of a past session to reopen (`session/load`) when the process starts, instead of a new session. */
  loadSessionId?: string;
}

/**
 * Runs an Arbor agent's turns in an external agent's process (Agent Client Protocol): each
 * turn is one `session/prompt`; what the agent streams (messages, thoughts, tool calls, plans)
 * is written to the Arbor agent's session as it arrives, so the transcript, the conversation
 * view and History show it like any agent's.
 *
 * Invariants:
 * - Stop (the turn's signal) sends `session/cancel`; the turn ends only when the agent ends it
 *   (or its process ends). When that takes longer than the grace, the agent reports
 *   `stop_overdue` so the editor can offer to end the process;
 * - End (dispose) ends the process group at once; the aborted turn then ends;
 * - a process that dies ends the turn with EXTERNAL_AGENT_CRASHED and its last output, and the
 *   conversation recorded so far stays; the next message starts the process again;
 * - the process starts with the first turn, so a start failure or a needed sign-in is that
 *   turn's typed error (EXTERNAL_AGENT_START_FAILED, EXTERNAL_AGENT_AUTH_REQUIRED), never a hang;
 * - each protocol session opened is recorded in the session log (`external_session`: the
 *   agent's id for it and whether it can be loaded again), which is what Resume reads;
 * - a resumed agent's first process reopens its past session with `session/load`: what the
 *   agent replays is written to the session as the conversation it remembers (never as this
 *   turn's answer), then the turn's prompt continues that conversation.
 */
export class ExternalAgentEngine implements TurnEngine<Agent> {
  readonly name: string;
  private session: AcpSession | undefined;
  private client: ExternalAgentClient | undefined;
  private transcript: TurnTranscript | undefined;
  /** While a past session loads: where the agent's replay goes. */
  private replay: TurnTranscript | undefined;
  /** The past session still to reopen (cleared once it is open). */
  private loadSessionId: string | undefined;
  private currentSignal: AbortSignal | undefined;
  private disposed = false;
  /** What the agent said about itself, once it has started. */
  info: AcpAgentInfo | undefined;

  constructor(private readonly options: ExternalEngineOptions) {
    this.name = options.config.name;
    this.loadSessionId = options.loadSessionId;
  }

  get pid(): number | undefined {
    return this.session?.pid;
  }

  async runTurn(turn: EngineTurn): Promise<TurnEnd> {
    const { signal } = turn;
    this.currentSignal = signal;
    const transcript = (this.transcript = new TurnTranscript(turn.agent));
    let overdue: NodeJS.Timeout | undefined;
    const onAbort = (): void => {
      if (abortCauseOf(signal) === 'disposed') return this.kill();
      this.session?.cancel();
      const graceMs = this.options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
      overdue = setTimeout(() => turn.stopOverdue(graceMs), graceMs);
    };
    try {
      if (signal.aborted) return aborted(turn, transcript);
      signal.addEventListener('abort', onAbort, { once: true });
      const session = await this.open(turn.agent);
      if (signal.aborted) {
        if (abortCauseOf(signal) === 'disposed') this.kill();
        return aborted(turn, transcript);
      }
      this.client?.newTurn();
      const stopReason = await session.prompt(turn.text);
      transcript.close();
      if (signal.aborted) return aborted(turn, transcript);
      return endOf(turn, stopReason, transcript.finalText);
    } catch (err) {
      transcript.close();
      const error = asArborError(err, 'EXTERNAL_AGENT_PROTOCOL');
      // Stopped or ended: however the agent's side then failed, the turn was aborted.
      if (signal.aborted) {
        if (!this.session || isArborError(error, 'EXTERNAL_AGENT_CRASHED')) this.forgetSession();
        return aborted(turn, transcript);
      }
      if (isArborError(error, 'EXTERNAL_AGENT_CRASHED') || isArborError(error, 'EXTERNAL_AGENT_AUTH_REQUIRED') || isArborError(error, 'EXTERNAL_AGENT_START_FAILED')) this.forgetSession();
      return { turn: turn.turn, reason: 'error', message: error.message, code: error.code, finalText: transcript.finalText };
    } finally {
      clearTimeout(overdue);
      signal.removeEventListener('abort', onAbort);
      this.currentSignal = undefined;
      if (this.transcript === transcript) this.transcript = undefined;
    }
  }

  dispose(): void {
    this.disposed = true;
    this.kill();
  }

  /** Ends the agent's process group (End, or the offer after an overdue Stop). */
  kill(): void {
    this.session?.kill();
    this.client?.dispose();
  }

  private async open(agent: EngineTurn['agent']): Promise<AcpSession> {
    if (this.session) return this.session;
    if (this.disposed) throw new Error('The agent has ended.');
    const client = (this.client ??= new ExternalAgentClient(agent, this.options.services, () => this.currentSignal));
    const loading = this.loadSessionId;
    const replay = loading !== undefined ? new TurnTranscript(agent, { replay: true }) : undefined;
    this.replay = replay;
    if (replay) agent.append({ type: 'assistant_text', at: now(), text: `${this.name} reopens its session (session/load); what it remembers of the conversation follows.` });
    let session: AcpSession;
    try {
      session = await AcpSession.open(this.options.config, {
        cwd: this.options.cwd,
        env: this.options.secretEnv,
        handlers: client.handlers((update) => (this.replay ?? this.transcript)?.update(update)),
        startTimeoutMs: this.options.startTimeoutMs,
        loadSessionId: loading,
      });
    } finally {
      replay?.close();
      this.replay = undefined;
    }
    if (this.disposed) {
      session.kill();
      throw new Error('The agent has ended.');
    }
    this.session = session;
    this.info = session.info;
    this.loadSessionId = undefined;
    agent.append({ type: 'external_session', at: now(), sessionId: session.sessionId, loadSession: session.info.loadSession });
    void session.exited.then(() => {
      if (this.session === session) this.forgetSession();
    });
    return session;
  }

  private forgetSession(): void {
    this.session?.kill();
    this.session = undefined;
    this.client?.dispose();
  }
}

function aborted(turn: EngineTurn, transcript: TurnTranscript): TurnEnd {
  transcript.close();
  return { turn: turn.turn, reason: 'aborted', cause: abortCauseOf(turn.signal) ?? 'user', finalText: transcript.finalText };
}

function endOf(turn: EngineTurn, stopReason: acp.StopReason, finalText: string): TurnEnd {
  switch (stopReason) {
    case 'end_turn':
      return { turn: turn.turn, reason: 'completed', finalText };
    case 'max_tokens':
    case 'max_turn_requests':
      return { turn: turn.turn, reason: 'budget', message: `the external agent stopped: ${stopReason.replace(/_/g, ' ')}`, finalText };
    case 'refusal':
      return { turn: turn.turn, reason: 'blocked', message: 'the external agent refused to carry on', finalText };
    case 'cancelled':
      return { turn: turn.turn, reason: 'aborted', cause: 'user', finalText };
  }
}

/**
 * One turn's stream, written to the session as it comes: text and thoughts are gathered and
 * written when the stream moves on to something else (a tool call, a plan, the other kind of
 * text) or the turn ends; tool calls and their results as they start and finish.
 */
class TurnTranscript {
  private text = '';
  private textKind: 'message' | 'thought' = 'message';
  /** Text is written at most this long after it arrived, so views follow the stream live. */
  private flushTimer: NodeJS.Timeout | undefined;
  private readonly messages: string[] = [];
  private readonly open = new Map<string, { name: string }>();
  /** A replay (`session/load`): the past conversation, written as such, never this turn's answer. */
  private readonly isReplay: boolean;
  private user = '';

  constructor(
    private readonly agent: EngineTurn['agent'],
    options: { replay?: boolean } = {},
  ) {
    this.isReplay = options.replay === true;
  }

  /** The agent's message text of this turn: the result a parent receives. */
  get finalText(): string {
    return this.messages.join('');
  }

  update(update: acp.SessionUpdate): void {
    switch (update.sessionUpdate) {
      case 'user_message_chunk':
        // Only a replay carries the person's own messages back: they are in the session already otherwise.
        if (!this.isReplay || update.content.type !== 'text') return;
        this.flush();
        this.user += update.content.text;
        return;
      case 'agent_message_chunk':
      case 'agent_thought_chunk': {
        if (update.content.type !== 'text') return;
        const kind = update.sessionUpdate === 'agent_message_chunk' ? 'message' : 'thought';
        if (kind !== this.textKind || this.user) this.flush();
        this.textKind = kind;
        this.text += update.content.text;
        if (kind === 'message' && !this.isReplay) this.messages.push(update.content.text);
        this.flushTimer ??= setTimeout(() => this.flush(), LIVE_TEXT_MS);
        return;
      }
      case 'tool_call': {
        this.flush();
        const call: ToolCall = { id: update.toolCallId, name: update.title || update.kind || 'tool', arguments: JSON.stringify(update.rawInput ?? {}) };
        this.open.set(update.toolCallId, { name: call.name });
        this.append({ type: 'tool_call', at: now(), call });
        if (update.status === 'completed' || update.status === 'failed') this.finishTool(update.toolCallId, update.status, update.content, update.rawOutput);
        return;
      }
      case 'tool_call_update':
        if (update.status === 'completed' || update.status === 'failed') {
          this.flush();
          this.finishTool(update.toolCallId, update.status, update.content ?? undefined, update.rawOutput);
        }
        return;
      case 'plan':
        this.flush();
        this.append({ type: 'assistant_text', at: now(), text: `Plan:\n${update.entries.map((e) => `${PLAN_MARK[e.status]} ${e.content}`).join('\n')}` });
        return;
      default:
        return;
    }
  }

  /** The turn ended: what is gathered is written, tool calls still open are closed. */
  close(): void {
    this.flush();
    for (const [id, { name }] of this.open) {
      this.append({ type: 'tool_result', at: now(), toolCallId: id, name, content: 'Ended with the turn before the agent reported its result.', isError: true });
    }
    this.open.clear();
  }

  private finishTool(id: string, status: 'completed' | 'failed', content: readonly acp.ToolCallContent[] | undefined, rawOutput: unknown): void {
    const open = this.open.get(id);
    if (!open) return;
    this.open.delete(id);
    const text = (content ?? [])
      .map((c) => (c.type === 'content' && c.content.type === 'text' ? c.content.text : c.type === 'diff' ? `(edited ${c.path})` : c.type === 'terminal' ? `(terminal ${c.terminalId})` : ''))
      .filter(Boolean)
      .join('\n');
    const output = text || (rawOutput !== undefined ? JSON.stringify(rawOutput) : status);
    this.append({ type: 'tool_result', at: now(), toolCallId: id, name: open.name, content: output, isError: status === 'failed' || undefined });
  }

  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    if (this.user !== '') {
      this.append({ type: 'user_message', at: now(), text: this.user, from: 'user' });
      this.user = '';
    }
    if (this.text === '') return;
    const text = this.textKind === 'thought' ? `Thinking: ${this.text}` : this.text;
    this.text = '';
    if (this.textKind === 'message' && !this.isReplay) this.agent.conversation.push({ role: 'assistant', content: text });
    this.append({ type: 'assistant_text', at: now(), text });
  }

  private append(event: Parameters<EngineTurn['agent']['append']>[0]): void {
    this.agent.append(event);
  }
}

const LIVE_TEXT_MS = 250;
const PLAN_MARK: Record<acp.PlanEntryStatus, string> = { pending: '[ ]', in_progress: '[~]', completed: '[x]' };

function now(): string {
  return new Date().toISOString();
}
