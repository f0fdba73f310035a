import type * as acp from '@agentclientprotocol/sdk';
import { ArborError, errnoOf, messageOf } from '../errors';
import { processEndedError, type AgentProcess, type ProcessExit } from './agentProcess';
import { commandLineOf, type LocalAgentConfig } from './config';

/**
 * When and why an external agent's protocol session is lost: its process exited, or its
 * connection closed. A connection can close under a process that lives on (the agent closed
 * its output, sent a line over the SDK's message limit, or stopped reading its input, which the
 * SDK sees as a failed write); such a process is ended, so a lost session always ends as after
 * a crash and the next message starts the agent again. The answer comes within
 * CLOSE_TO_EXIT_MS of the close, whatever the process does.
 */

/**
 * Settles once the session cannot be used any more, with why. A closed connection waits a
 * moment for the process's exit (it closes a moment before the exit is reported, and a crash
 * says more than a closed pipe); a process still running then is ended.
 */
export function whenLost(config: LocalAgentConfig, proc: Pick<AgentProcess, 'childExit' | 'kill' | 'outputClosed'>, connection: Pick<acp.ClientConnection, 'signal'>): Promise<ArborError> {
  const closed = new Promise<unknown>((resolve) => {
    if (connection.signal.aborted) resolve(connection.signal.reason);
    else connection.signal.addEventListener('abort', () => resolve(connection.signal.reason), { once: true });
  });
  return Promise.race([
    // The direct child's exit, not the pipes' close: a launcher's exit ends the agent it started.
    proc.childExit.then((exit) => processEndedError(config.name, config, exit)),
    closed.then(async (reason) => {
      const exit = await exitWithin(proc, CLOSE_TO_EXIT_MS);
      if (exit) return processEndedError(config.name, config, exit);
      proc.kill();
      return connectionLost(config, reason, proc.outputClosed);
    }),
  ]);
}

/** Why a connection closed under a living process, as the typed error its turn ends with. */
function connectionLost(config: LocalAgentConfig, reason: unknown, outputClosed: boolean): ArborError {
  const after = 'Arbor ended its process; your next message starts it again.';
  const error = reason instanceof Error ? reason : undefined;
  const errno = errnoOf(reason);
  // A write that failed (a closed pipe, or the stream Node destroyed when the process exited) is a crash.
  if ((error && 'syscall' in error && error.syscall === 'write') || errno === 'EPIPE' || errno === 'ERR_STREAM_DESTROYED' || error?.name === 'AbortError') {
    return new ArborError('EXTERNAL_AGENT_CRASHED', `The external agent ${config.name} (${commandLineOf(config)}) stopped reading its input (${errno ?? messageOf(reason)}) while its process kept running. ${after}`, { name: config.name, code: null, signal: null });
  }
  const why =
    error?.name === 'MessageTooLargeError'
      ? `sent a message over the connection's limit (${error.message})`
      : outputClosed
        ? 'closed its output while its process kept running'
        : `broke its connection (${messageOf(reason)})`;
  return new ArborError('EXTERNAL_AGENT_PROTOCOL', `The external agent ${config.name} ${why}. ${after}`, { name: config.name });
}

/** How long a closed connection waits to learn whether the process ended (and so why it closed). */
const CLOSE_TO_EXIT_MS = 2_000;

function exitWithin(proc: Pick<AgentProcess, 'childExit'>, ms: number): Promise<ProcessExit | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    proc.childExit.finally(() => clearTimeout(timer)),
    new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms))),
  ]);
}
