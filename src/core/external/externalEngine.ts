import type { Agent, EngineNotice, EngineTurn as AnyEngineTurn, TurnEngine, TurnEnd } from '../agents/agent';
import { isoNow } from '../clock';
import { abortCauseOf, asArborError, type ArborError } from '../errors';
import { warnProcess } from '../problems';
import { AcpSession, type AcpAgentInfo, type AcpClientHandlers } from './acpConnection';
import { ExternalAgentClient, type ExternalAgentServices } from './clientServices';
import type { ExternalAgentConfig } from './config';
import { afterLoss, MemoryNotice, whyNotLoaded } from './afterLoss';
import { aborted, endOf } from './externalTurnEnd';
import { ExternalSubagents } from './externalSubagents';
import { ReportedCost } from './reportedCost';
import { TurnTranscript } from './turnTranscript';
import { watchAgentTurn } from './workspaceWatch';

type EngineTurn = AnyEngineTurn<Agent>;

/** How long a stopped external agent may take to end its turn before Arbor offers to end it. */
export const DEFAULT_STOP_GRACE_MS = 10_000;

export interface ExternalEngineOptions {
  config: ExternalAgentConfig;
  services: ExternalAgentServices;
  /** The folder the agent works in (its run's folder, else the workspace folder). */
  cwd: string;
  /** Secrets from the editor's secret storage, added to the agent's environment. */
  secretEnv?: Record<string, string>;
  /** A served agent's token from the editor's secret storage, read again for each connection (it may be set after one was refused). */
  token?: () => Promise<string | undefined>;
  stopGraceMs?: number;
  startTimeoutMs?: number;
  /** The agent's own id of a past session to reopen (`session/load`) when the process starts, instead of a new session. */
  loadSessionId?: string;
  /**
   * When that session cannot be loaded (the agent no longer offers session/load, or its load
   * fails): `refuse` (Resume from History) makes it the turn's error; `fresh` (a restore) opens a
   * new session and says that the agent starts with a fresh memory, and why.
   */
  whenNotLoadable?: 'refuse' | 'fresh';
  /**
   * What the agent replays while its session loads: `record` writes it to the session (Resume
   * of a past session); `skip` (a restore, whose session already holds that conversation)
   * writes one line saying it was reopened, so a reload does not write the conversation again.
   */
  replay?: 'record' | 'skip';
  /** Known when the engine is made: the agent had a session it cannot load, and why (see restoreExternal.ts). */
  freshMemory?: string;
}

/** How the agent's process came back (start): its protocol session, loaded or new, and what its node says. */
export interface ExternalStart {
  readonly sessionId: string;
  readonly loaded: boolean;
  readonly notice?: EngineNotice;
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
 * - End (dispose) ends every process of the agent at once (also while it starts); the aborted
 *   turn then ends within the connection's close-to-exit wait, whatever the process does;
 * - every way a turn ends is a TurnEnd: a stop reason the agent sends is parsed at the boundary
 *   (an unknown one ends the turn EXTERNAL_AGENT_PROTOCOL, and the agent goes idle);
 * - a process that dies ends the turn with EXTERNAL_AGENT_CRASHED and its last output, and the
 *   conversation recorded so far stays; a connection that closed under a living process ends
 *   that process and the turn (see connectionLoss.ts). Either way the session is forgotten and
 *   the next message starts the process again;
 * - the process starts with the first turn, so a start failure or a needed sign-in is that
 *   turn's typed error (EXTERNAL_AGENT_START_FAILED, EXTERNAL_AGENT_AUTH_REQUIRED), never a hang;
 * - each protocol session opened is recorded in the session log (`external_session`: the
 *   agent's id for it and whether it can be loaded again), which is what Resume reads;
 * - a resumed agent's first process reopens its past session with `session/load`: what the
 *   agent replays is written to the session as the conversation it remembers (never as this
 *   turn's answer), then the turn's prompt continues that conversation;
 * - a restored agent (`whenNotLoadable: 'fresh'`) always gets a process: when its session cannot
 *   be loaded it starts a new one, and `notice` (its node) and its transcript say that it starts
 *   with a fresh memory and why. One start runs at a time: `start` and a first turn share it.
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
  /** Aborted by dispose: abandons a start under way. */
  private readonly ended = new AbortController();
  /** While a restored agent's session loads without being recorded: its replay goes nowhere. */
  private loadingQuietly = false;
  /** The start under way, shared by whoever needs the session meanwhile. */
  private opening: Promise<AcpSession> | undefined;
  /** What its node says about its memory and its connection (afterLoss.ts). */
  private readonly memory: MemoryNotice;
  /** The next process comes back after a lost one (see afterLoss.ts). */
  private restarting = false;
  /** The session open now is the agent's own earlier one, loaded. */
  private loaded = false;
  /** What the agent said about itself, once it has started. */
  info: AcpAgentInfo | undefined;
  private readonly cost = new ReportedCost();
  private subagents: ExternalSubagents | undefined;
  private turn: EngineTurn | undefined;

  constructor(private readonly options: ExternalEngineOptions) {
    this.name = options.config.name;
    this.memory = new MemoryNotice(this.name);
    this.loadSessionId = options.loadSessionId;
    if (options.freshMemory !== undefined) this.memory.fresh({ short: 'cannot load its earlier session', why: options.freshMemory });
  }

  /** Set when the agent lost its earlier memory (it started a new session instead of loading its own), or a served agent its connection. */
  get notice(): EngineNotice | undefined {
    return this.memory.notice;
  }

  get pid(): number | undefined {
    return this.session?.pid;
  }

  async runTurn(turn: EngineTurn): Promise<TurnEnd> {
    const { signal } = turn;
    this.currentSignal = signal;
    this.turn = turn;
    const transcript = (this.transcript = new TurnTranscript(turn.agent));
    let overdue: NodeJS.Timeout | undefined;
    let recordChanges: (() => Promise<void>) | undefined;
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
      recordChanges = await watchAgentTurn(turn.agent, this.options.cwd, this.options.services);
      const { stopReason, usage } = await session.prompt(turn.text);
      if (usage) turn.recordUsage(usage.inputTokens, usage.outputTokens);
      transcript.close();
      if (signal.aborted) return aborted(turn, transcript);
      return endOf(turn, stopReason, transcript.finalText);
    } catch (err) {
      transcript.close();
      const error = asArborError(err, 'EXTERNAL_AGENT_PROTOCOL');
      // A session that cannot be used any more is forgotten: the next message starts the agent again.
      if (!this.session?.usable) this.forgetSession(error);
      // Stopped or ended: however the agent's side then failed, the turn was aborted.
      if (signal.aborted) return aborted(turn, transcript);
      return { turn: turn.turn, reason: 'error', message: error.message, code: error.code, finalText: transcript.finalText };
    } finally {
      // What the agent changed by its own means, recorded before its turn's end is.
      await recordChanges?.().catch((err: unknown) => warnProcess(`The changes ${this.name} made in this turn could not all be recorded for Review.`, err));
      clearTimeout(overdue);
      signal.removeEventListener('abort', onAbort);
      this.currentSignal = undefined;
      if (this.turn === turn) this.turn = undefined;
      if (this.transcript === transcript) this.transcript = undefined;
    }
  }

  dispose(): void {
    this.disposed = true;
    this.ended.abort();
    this.kill();
  }

  /** Ends the agent's process group (End, or the offer after an overdue Stop). */
  kill(): void {
    this.session?.kill();
    this.client?.dispose();
  }

  /**
   * Starts the agent's process now rather than with its next turn (a restored agent gets its
   * process back): its own session loaded when it can be, else a new one. Rejects as a turn's
   * start would (EXTERNAL_AGENT_START_FAILED, EXTERNAL_AGENT_AUTH_REQUIRED, AGENT_DISPOSED when
   * the agent ends meanwhile); the next turn then tries again.
   */
  async start(agent: Agent): Promise<ExternalStart> {
    const session = await this.open(agent);
    return this.notice ? { sessionId: session.sessionId, loaded: this.loaded, notice: this.notice } : { sessionId: session.sessionId, loaded: this.loaded };
  }

  private open(agent: EngineTurn['agent']): Promise<AcpSession> {
    if (this.session?.usable) return Promise.resolve(this.session);
    return (this.opening ??= this.startSession(agent).finally(() => (this.opening = undefined)));
  }

  private async startSession(agent: EngineTurn['agent']): Promise<AcpSession> {
    if (this.session) this.forgetSession();
    if (this.disposed) throw new Error('The agent has ended.');
    const loading = this.loadSessionId;
    let loaded = loading !== undefined;
    let session: AcpSession;
    try {
      session = await this.connect(agent, loading);
    } catch (err) {
      const why = loaded && (this.options.whenNotLoadable === 'fresh' || this.restarting) && !this.disposed ? whyNotLoaded(err) : undefined;
      if (why === undefined) throw err;
      // The session cannot come back: a new one stands in for it, and the node says so at once.
      loaded = false;
      this.loadSessionId = undefined;
      this.memory.fresh(why);
      agent.engineChanged();
      session = await this.connect(agent, undefined);
    }
    if (this.disposed) {
      session.kill();
      throw new Error('The agent has ended.');
    }
    this.session = session;
    this.info = session.info;
    this.loaded = loaded;
    if (!loaded) this.cost.newSession();
    this.loadSessionId = undefined;
    const restarted = this.restarting;
    this.restarting = false;
    if (this.loaded && (this.options.replay === 'skip' || restarted)) {
      agent.append({ type: 'assistant_text', at: isoNow(), text: `${this.name} reopened its own session (session/load): it remembers the conversation above.` });
    }
    const note = this.memory.takeNote();
    if (note !== undefined) agent.append({ type: 'assistant_text', at: isoNow(), text: note });
    if (this.memory.reconnected()) agent.engineChanged();
    agent.append({ type: 'external_session', at: isoNow(), sessionId: session.sessionId, loadSession: session.info.loadSession });
    void session.lost.then((why) => {
      if (this.session === session) this.forgetSession(why);
    });
    return session;
  }

  /** The client's handlers, with what the agent streams written to the turn's transcript, and its subagents' to theirs. */
  private handlersOf(client: ExternalAgentClient): AcpClientHandlers {
    const subagents = (this.subagents = new ExternalSubagents(this.name, this.options.services.startChild, { cancel: (id) => this.session?.cancelChild(id) }));
    return subagents.route(client, {
      update: (update) => {
        const grown = update.sessionUpdate === 'usage_update' && this.streamTarget() === this.transcript ? this.cost.growth(update) : 0;
        if (grown > 0) this.turn?.recordCost(grown);
        this.streamTarget()?.update(update);
      },
      permission: (call) => this.streamTarget()?.permission(call),
    });
  }

  /** Where what the agent streams goes: a replay being recorded, nothing while a load is not recorded, else the turn. */
  private streamTarget(): TurnTranscript | undefined {
    return this.replay ?? (this.loadingQuietly ? undefined : this.transcript);
  }

  /** One process and protocol session: `loading` is loaded (its replay recorded or not, see `replay`), else a new one is made. */
  private async connect(agent: EngineTurn['agent'], loading: string | undefined): Promise<AcpSession> {
    const client = (this.client ??= new ExternalAgentClient(agent, this.options.services, () => this.currentSignal));
    // A restart's transcript holds the conversation already, as a restore's does.
    const record = loading !== undefined && this.options.replay !== 'skip' && !this.restarting;
    const replay = record ? new TurnTranscript(agent, { replay: true }) : undefined;
    this.replay = replay;
    this.loadingQuietly = loading !== undefined && !record;
    if (replay) agent.append({ type: 'assistant_text', at: isoNow(), text: `${this.name} reopens its session (session/load); what it remembers of the conversation follows.` });
    try {
      const token = await this.options.token?.();
      return await AcpSession.open(this.options.config, {
        cwd: this.options.cwd,
        env: this.options.secretEnv,
        token,
        sandbox: this.options.services.sandbox,
        handlers: this.handlersOf(client),
        startTimeoutMs: this.options.startTimeoutMs,
        loadSessionId: loading,
        signal: this.ended.signal,
      });
    } finally {
      replay?.close();
      this.replay = undefined;
      this.loadingQuietly = false;
    }
  }

  /**
   * The session is lost (a crash, End Process, a served agent's dropped connection, `why`):
   * forgotten, and what the next process or connection remembers is settled now (afterLoss.ts).
   */
  private forgetSession(why?: ArborError): void {
    const lost = this.session;
    this.subagents?.lost();
    this.session?.kill();
    this.session = undefined;
    this.client?.dispose();
    if (!lost || this.disposed) return;
    const next = afterLoss(lost);
    this.restarting = true;
    if ('loadSessionId' in next) {
      this.loadSessionId = next.loadSessionId;
      if (lost.remote) this.memory.disconnected(why?.message ?? `${this.name} lost its connection.`);
    } else this.memory.fresh(next.fresh);
    if (lost.remote || 'fresh' in next) this.client?.agent.engineChanged();
  }
}
