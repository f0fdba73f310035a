import type * as acp from '@agentclientprotocol/sdk';
import { ArborError, errnoOf, messageOf } from '../errors';
import type { AcpCarrier } from './acpCarrier';
import type * as NetLib from './acpNetLib';
import type { ExternalAgentConfig, RemoteAgentConfig } from './config';

/**
 * A served agent's carrier: one network connection to its `url` with the SDK's own client
 * transports, WebSocket for ws:// and wss://, streamable HTTP (POST, with server-sent events
 * back) for http:// and https://. Its token, when one is stored, goes in every request's
 * `Authorization: Bearer` header and nowhere else.
 *
 * Invariants:
 * - the session is lost when the connection closes, for whatever reason (the server went away,
 *   a proxy dropped it, the network broke): EXTERNAL_AGENT_DISCONNECTED, and the next message
 *   connects again (the engine then continues the agent's session with `session/load` when it
 *   offers it, see afterLoss.ts);
 * - a server that refuses the token, or asks for one (HTTP 401 or 403, on the WebSocket upgrade
 *   or any request), is EXTERNAL_AGENT_UNAUTHORIZED naming the command that sets the token;
 * - the token never appears in an error, a log line or a transcript: an error text that quotes
 *   it (a server that echoes its headers) has it cut out.
 */

/** The entry is an agent served over the network (`url`), not a program Arbor starts. */
export function isRemoteAgent(config: ExternalAgentConfig): config is RemoteAgentConfig {
  return 'url' in config;
}

/** The command that stores a served agent's token, as the person finds it in the palette. */
export const SET_TOKEN_COMMAND_TITLE = 'Arbor: Set External Agent Token...';

let loadedLib: typeof NetLib | undefined;
/** The transports and `ws`, loaded the first time a served agent connects (see acpNetLib.ts). */
function netLib(): typeof NetLib {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load is the point
  return (loadedLib ??= require('./acpNetLib') as typeof NetLib);
}

export function networkCarrier(config: RemoteAgentConfig, token: string | undefined): AcpCarrier {
  const lib = netLib();
  const headers = token ? { Authorization: `Bearer ${token}` } : undefined;
  const webSocket = /^wss?:$/.test(new URL(config.url).protocol);
  const stream = webSocket
    ? lib.createWebSocketStream(config.url, { WebSocket: lib.WebSocket, headers })
    : lib.createHttpStream(config.url, { headers, fetch: startAgainOnStaleSocket });
  return {
    stream,
    whenLost: (connection) => closed(connection).then((reason) => remoteLost(config, reason, token)),
    // The connection is the agent: once it is closed nothing more comes from it.
    gone: () => false,
    // The protocol connection's close (AcpSession.kill) closes the socket or the HTTP streams.
    kill: () => undefined,
    startHint: 'check that this address serves an Agent Client Protocol agent',
  };
}

/** How often the first request of a connection is sent again on a socket found closed (see startAgainOnStaleSocket). */
const STALE_SOCKET_RETRIES = 3;

/**
 * fetch, with a connection's first request (`initialize`) sent again when it failed before any
 * answer because the socket it went on was already closed by the server: after a dropped
 * connection the pool may still hold kept-alive sockets whose end has not been seen yet. Only
 * `initialize` is sent again (it makes nothing on the agent's side but a connection it drops
 * unused); a prompt or any other request is never sent twice.
 */
const startAgainOnStaleSocket: typeof fetch = async (input, init) => {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fetch(input, init);
    } catch (err) {
      if (attempt >= STALE_SOCKET_RETRIES || init?.signal?.aborted || !isInitialize(init?.body) || !STALE_SOCKET.has(errnoOf(err instanceof Error ? err.cause : undefined) ?? '')) throw err;
    }
  }
};

const STALE_SOCKET = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

function isInitialize(body: unknown): boolean {
  if (typeof body !== 'string') return false;
  try {
    return (JSON.parse(body) as { method?: unknown }).method === 'initialize';
  } catch {
    // Not JSON: not an initialize request, so never sent again.
    return false;
  }
}

function closed(connection: Pick<acp.ClientConnection, 'signal'>): Promise<unknown> {
  const { signal } = connection;
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });
}

/** Why a served agent's connection ended, as the typed error its turn (or its start) ends with. */
export function remoteLost(config: RemoteAgentConfig, reason: unknown, token: string | undefined): ArborError {
  const status = httpStatusOf(reason);
  const where = `${config.name} at ${config.url}`;
  if (status === 401 || status === 403) {
    const what = token ? 'did not accept its token' : 'needs a token, and none is set';
    return new ArborError(
      'EXTERNAL_AGENT_UNAUTHORIZED',
      `The external agent ${where} ${what} (HTTP ${status}). Set its token with "${SET_TOKEN_COMMAND_TITLE}", then send your message again.`,
      { name: config.name, url: config.url, status },
    );
  }
  const errno = errnoOf(reason) ?? errnoOf(reason instanceof Error ? reason.cause : undefined);
  const unreachable = errno !== undefined && UNREACHABLE.has(errno);
  const what =
    status === 404 || status === 410
      ? `No agent is served for ${where} (HTTP ${status}).`
      : unreachable
        ? `The external agent ${where} cannot be reached (${errno}).`
        : `The connection to the external agent ${where} closed (${withoutToken(reasonText(reason), token)}).`;
  return new ArborError('EXTERNAL_AGENT_DISCONNECTED', `${what} Your next message connects again.`, {
    name: config.name,
    url: config.url,
    ...(status ? { status } : {}),
    ...(errno ? { errno } : {}),
  });
}

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * The HTTP status a refused connection carries: the streamable-HTTP transport's error has it as
 * `status`; `ws` says it in its message when the upgrade is answered with anything but 101.
 */
function httpStatusOf(reason: unknown): number | undefined {
  if (typeof reason !== 'object' || reason === null) return undefined;
  const status = (reason as { status?: unknown }).status;
  if (typeof status === 'number') return status;
  const upgrade = /Unexpected server response: (\d{3})/.exec(messageOf(reason));
  return upgrade ? Number(upgrade[1]) : undefined;
}

/** The reason's words, with its cause's (fetch says only "fetch failed"; its cause says why). */
function reasonText(reason: unknown): string {
  const cause = reason instanceof Error && reason.cause !== undefined ? messageOf(reason.cause) : undefined;
  return cause ? `${messageOf(reason)}: ${cause}` : messageOf(reason);
}

function withoutToken(text: string, token: string | undefined): string {
  return token ? text.split(token).join('[token]') : text;
}
