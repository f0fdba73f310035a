import type * as acp from '@agentclientprotocol/sdk';
import { ArborError, isArborError, messageOf } from '../errors';
import { parseInitialize, parseNewSession, parsePromptUsage, parseStopReason, type AuthMethodInfo, type StopReason, type TurnUsage } from './acpAnswers';
import { notResumable, reasonOf, signInNeeded } from './acpErrors';
import type { AcpCarrier } from './acpCarrier';
import { withSubagentUpdates, type SubagentUpdate } from './acpSubagents';
import { commandLineOf, type ExternalAgentConfig } from './config';
import { isRemoteAgent, networkCarrier } from './networkCarrier';
import { processCarrier } from './processCarrier';
import type { CommandSandbox } from '../sandbox';

export { programFoldersUnderTmp } from './processCarrier';

/**
 * The client side of the Agent Client Protocol over one external agent, built on the official
 * SDK (`@agentclientprotocol/sdk`): it reaches the agent through its carrier (acpCarrier.ts: a
 * process Arbor starts, or a network connection to a served agent), completes `initialize` and
 * `session/new`, sends prompts and `session/cancel`, and serves the agent's requests through
 * the handlers it is given (Arbor's approval seam and workspace port). Everything below holds
 * over either carrier.
 *
 * Invariants:
 * - nothing waits on the agent without a way out: every request races the session's loss (the
 *   process's exit, or the connection's close), and start-up (`initialize`, `session/new`) has
 *   a deadline and a signal after which the carrier is ended;
 * - a connection that closes while the process lives on (the agent closed its output, sent a
 *   line over the SDK's message limit, or stopped reading its input) ends the process: a
 *   session is usable only while both are, and `lost` says why it no longer is;
 * - what the agent answers is parsed at the boundary (acpAnswers.ts): a stop reason Arbor does
 *   not know is EXTERNAL_AGENT_PROTOCOL naming it, and the session stays usable;
 * - an agent that reports it needs a sign-in gets EXTERNAL_AGENT_AUTH_REQUIRED, naming the agent
 *   and what to run, and its process is ended;
 * - a handler's ArborError reaches the agent as a JSON-RPC error carrying its stable code;
 * - a past session is reopened only through `session/load`, and only when the agent said in
 *   `initialize` that it can (`loadSession`); otherwise opening it is EXTERNAL_NOT_RESUMABLE
 *   and the process is ended. The updates the agent replays while loading reach the handlers'
 *   `sessionUpdate` before `open` resolves.
 */

let loadedSdk: typeof acp | undefined;
/**
 * The SDK, loaded when the first external agent starts: the editor's bundle keeps it in a file
 * of its own (see esbuild.mjs), so activation never pays for it.
 */
function sdk(): typeof acp {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load is the point
  return (loadedSdk ??= require('@agentclientprotocol/sdk') as typeof acp);
}

/** What the client serves for the agent. Each call is already parsed by the SDK's schemas. */
export interface AcpClientHandlers {
  /** An update on `sessionId`: the agent's own session, or one of its subagents' (acpSubagents.ts). */
  sessionUpdate(update: acp.SessionUpdate, sessionId: string): void;
  /** A subagent announced or patched on the parent session (see acpSubagents.ts); without it Arbor does not offer subagents. */
  subagentUpdate?(parentSessionId: string, update: SubagentUpdate): void;
  requestPermission(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse>;
  readTextFile(params: acp.ReadTextFileRequest, signal: AbortSignal): Promise<acp.ReadTextFileResponse>;
  writeTextFile(params: acp.WriteTextFileRequest, signal: AbortSignal): Promise<acp.WriteTextFileResponse>;
  createTerminal(params: acp.CreateTerminalRequest, signal: AbortSignal): Promise<acp.CreateTerminalResponse>;
  terminalOutput(params: acp.TerminalOutputRequest): Promise<acp.TerminalOutputResponse>;
  waitForTerminalExit(params: acp.WaitForTerminalExitRequest, signal: AbortSignal): Promise<acp.WaitForTerminalExitResponse>;
  killTerminal(params: acp.KillTerminalRequest): Promise<acp.KillTerminalResponse>;
  releaseTerminal(params: acp.ReleaseTerminalRequest): Promise<acp.ReleaseTerminalResponse>;
}

export interface AcpSessionOptions {
  /** The folder the agent works in (the workspace folder). */
  cwd: string;
  /** Extra environment (secrets from the editor's secret storage). */
  env?: Record<string, string>;
  /** A served agent's token (from the editor's secret storage), sent as `Authorization: Bearer`. */
  token?: string;
  /** Where the process starts when its configuration asks for the sandbox (`sandbox: true`). */
  sandbox?: CommandSandbox;
  handlers: AcpClientHandlers;
  /** How long `initialize` and `session/new` (or `session/load`) may take together. */
  startTimeoutMs?: number;
  /** Reopen this past session of the agent (`session/load`) instead of starting a new one. */
  loadSessionId?: string;
  clientVersion?: string;
  /** Abandons the start: the process is ended and `open` rejects (the agent was ended meanwhile). */
  signal?: AbortSignal;
}

export const DEFAULT_START_TIMEOUT_MS = 60_000;

/** What the agent said about itself in `initialize`. */
export interface AcpAgentInfo {
  name?: string;
  version?: string;
  protocolVersion: number;
  /** The agent can reopen a past session (`session/load`). */
  loadSession: boolean;
}

export class AcpSession {
  private constructor(
    readonly config: ExternalAgentConfig,
    private readonly carrier: AcpCarrier,
    private readonly connection: acp.ClientConnection,
    /** Settles, with why, once the session can no longer be used (see `usable`). */
    readonly lost: Promise<ArborError>,
    readonly sessionId: string,
    readonly info: AcpAgentInfo,
  ) {}

  /** Starts the agent's process (or connects to a served agent) and opens one protocol session in `cwd`. */
  static async open(config: ExternalAgentConfig, options: AcpSessionOptions): Promise<AcpSession> {
    const carrier = isRemoteAgent(config) ? networkCarrier(config, options.token) : await processCarrier(config, options, sdk());
    const app = clientApp(options.handlers, () => carrier.gone());
    const { subagentUpdate } = options.handlers;
    const { stream } = carrier;
    const connection = app.connect(subagentUpdate ? withSubagentUpdates(stream, (parent, update) => subagentUpdate(parent, update)) : stream);
    const lost = carrier.whenLost(connection);
    const deadline = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const gaveUp = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ArborError(
              'EXTERNAL_AGENT_START_FAILED',
              `The external agent ${config.name} (${commandLineOf(config)}) did not finish starting within ${Math.round(deadline / 1000)} s; ${carrier.startHint}.`,
              { name: config.name },
            ),
          ),
        deadline,
      );
      onAbort = () => reject(new ArborError('AGENT_DISPOSED', `The external agent ${config.name} was ended while it started.`, { name: config.name }));
      if (options.signal?.aborted) onAbort();
      else options.signal?.addEventListener('abort', onAbort, { once: true });
    });
    const link: Link = { config, connection, lost };
    try {
      const init = parseInitialize(
        config.name,
        await race(
          connection.agent.request('initialize', {
            protocolVersion: sdk().PROTOCOL_VERSION,
            clientCapabilities: capabilitiesOf(options.handlers),
            clientInfo: { name: 'arbor', title: 'Arbor', version: options.clientVersion ?? '0' },
          }),
          link,
          gaveUp,
        ),
      );
      const info: AcpAgentInfo = { name: init.name, version: init.version, protocolVersion: init.protocolVersion, loadSession: init.loadSession };
      if (options.loadSessionId !== undefined) {
        if (!info.loadSession) throw notResumable(config.name);
        await race(connection.agent.request('session/load', { sessionId: options.loadSessionId, cwd: options.cwd, mcpServers: [] }), link, gaveUp, init.authMethods);
        return new AcpSession(config, carrier, connection, lost, options.loadSessionId, info);
      }
      const created = await race(connection.agent.request('session/new', { cwd: options.cwd, mcpServers: [] }), link, gaveUp, init.authMethods);
      return new AcpSession(config, carrier, connection, lost, parseNewSession(config.name, created), info);
    } catch (err) {
      connection.close();
      carrier.kill();
      throw err;
    } finally {
      clearTimeout(timer);
      if (onAbort) options.signal?.removeEventListener('abort', onAbort);
    }
  }

  get pid(): number | undefined {
    return this.carrier.pid;
  }

  /** The agent is served over the network (its loss is a dropped connection, not a crash). */
  get remote(): boolean {
    return isRemoteAgent(this.config);
  }

  /** The connection is open and the agent's side is there (its process runs): a prompt can reach the agent. */
  get usable(): boolean {
    return !this.connection.signal.aborted && !this.carrier.gone();
  }

  /** Sends one prompt; resolves with the agent's stop reason (and the tokens it says it used) when its turn ends. */
  async prompt(text: string): Promise<{ stopReason: StopReason; usage?: TurnUsage }> {
    const link = { config: this.config, connection: this.connection, lost: this.lost };
    const answer = await race(this.connection.agent.request('session/prompt', { sessionId: this.sessionId, prompt: [{ type: 'text', text }] }), link);
    return { stopReason: parseStopReason(this.config.name, answer), usage: parsePromptUsage(answer) };
  }

  /** Asks the agent to end its current turn (it answers the pending prompt with `cancelled`). */
  cancel(): void {
    if (!this.usable) return;
    // An agent that cannot take the notice is gone: its connection's end ends the turn.
    this.connection.agent.notify('session/cancel', { sessionId: this.sessionId }).catch(() => undefined);
  }

  /** Asks the agent to end the current work of one of its subagents (only where it advertised `cancel` for it). */
  cancelChild(childSessionId: string): void {
    if (!this.usable) return;
    // An agent that cannot take the notice is gone: its connection's end ends the child's work.
    this.connection.agent.notify('session/cancel', { sessionId: childSessionId }).catch(() => undefined);
  }

  /** Ends the connection and every process of the agent. */
  kill(): void {
    this.connection.close();
    this.carrier.kill();
  }
}

/**
 * The SDK's client app, each request served by a handler; ArborErrors keep their codes on the
 * wire. Once the agent's direct child is gone, what still speaks on its pipes (a process its
 * launcher left) is not the agent: its permission requests are cancelled without asking anyone,
 * and nothing else it asks is done.
 */
function clientApp(handlers: AcpClientHandlers, gone: () => boolean): acp.ClientApp {
  const serve =
    <P, R>(handler: (params: P, signal: AbortSignal) => Promise<R>, ifGone?: R) =>
    async ({ params, signal }: { params: P; signal: AbortSignal }): Promise<R> => {
      try {
        if (gone() && ifGone !== undefined) return ifGone;
        if (gone()) throw new ArborError('EXTERNAL_AGENT_CRASHED', 'The agent\'s process has exited; nothing more is done for it.');
        return await handler(params, signal);
      } catch (err) {
        throw toRequestError(err);
      }
    };
  return sdk()
    .client({ name: 'arbor' })
    .onNotification('session/update', ({ params }) => handlers.sessionUpdate(params.update, params.sessionId))
    .onRequest('session/request_permission', serve((p, s) => handlers.requestPermission(p, s), cancelledPermission))
    .onRequest('fs/read_text_file', serve((p, s) => handlers.readTextFile(p, s)))
    .onRequest('fs/write_text_file', serve((p, s) => handlers.writeTextFile(p, s)))
    .onRequest('terminal/create', serve((p, s) => handlers.createTerminal(p, s)))
    .onRequest('terminal/output', serve((p) => handlers.terminalOutput(p)))
    .onRequest('terminal/wait_for_exit', serve((p, s) => handlers.waitForTerminalExit(p, s)))
    .onRequest('terminal/kill', serve((p) => handlers.killTerminal(p)))
    .onRequest('terminal/release', serve((p) => handlers.releaseTerminal(p)));
}

/** What Arbor can do for the agent; `subagents` (the protocol's, newer than the SDK's stable types) when it renders them. */
function capabilitiesOf(handlers: AcpClientHandlers): acp.ClientCapabilities {
  const capabilities = { fs: { readTextFile: true, writeTextFile: true }, terminal: true, ...(handlers.subagentUpdate ? { subagents: {} } : {}) };
  return capabilities;
}

const cancelledPermission: acp.RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };

function toRequestError(err: unknown): acp.RequestError {
  const { RequestError } = sdk();
  if (err instanceof RequestError) return err;
  if (isArborError(err)) {
    const code = err.code === 'FILE_NOT_FOUND' ? -32002 : err.code === 'TOOL_ARGUMENTS_INVALID' ? -32602 : -32603;
    return new RequestError(code, err.message, { code: err.code, ...err.details });
  }
  return new RequestError(-32603, messageOf(err));
}

/** What a request races: the connection it goes over and why that was lost, once it is. */
interface Link {
  readonly config: ExternalAgentConfig;
  readonly connection: acp.ClientConnection;
  readonly lost: Promise<ArborError>;
}

/**
 * The request's answer, unless the session is lost first (why: EXTERNAL_AGENT_CRASHED with the
 * process's last output, or EXTERNAL_AGENT_PROTOCOL for a connection that closed under a living
 * process) or the agent answers that it needs a sign-in (EXTERNAL_AGENT_AUTH_REQUIRED).
 */
async function race<T>(request: Promise<T>, link: Link, deadline?: Promise<never>, authMethods?: readonly AuthMethodInfo[]): Promise<T> {
  const { config, connection } = link;
  const lost = link.lost.then((err): never => {
    throw err;
  });
  try {
    return await Promise.race(deadline ? [request, lost, deadline] : [request, lost]);
  } catch (err) {
    if (isArborError(err)) throw err;
    const { RequestError } = sdk();
    if (err instanceof RequestError && err.code === -32000) throw signInNeeded(config, authMethods ?? [], reasonOf(err));
    // The request failed because the connection closed: why it closed is the answer.
    if (connection.signal.aborted) throw await link.lost;
    if (err instanceof RequestError) {
      throw new ArborError('EXTERNAL_AGENT_PROTOCOL', `The external agent ${config.name} answered with an error: ${err.message}`, { name: config.name, rpcCode: err.code });
    }
    throw err;
  }
}
