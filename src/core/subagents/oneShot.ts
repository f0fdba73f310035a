import { whenAborted } from '../agents/turnAbort';
import { abortCauseOf } from '../errors';
import type { Agent } from '../agents/agent';
import { describeTurnEnd } from '../agents/turnEnds';

export type OneShotOutcome =
  | { status: 'completed'; agentId: string; result: string }
  | { status: 'aborted'; agentId: string; cause: string; partial: string }
  | { status: 'error' | 'budget'; agentId: string; message: string; partial: string };

/**
 * Run a one-shot child to completion inside the parent's turn. The child is owned by the
 * parent: aborting the parent's turn (its `signal`) aborts the child. `watch` subscribes to that
 * abort; the runtime passes the parent's own (`Agent.whenTurnAborted`), which costs no listener
 * on the signal per child. Once the child is idle it is ended and released, and its last turn
 * is the outcome; if starting it throws, it is ended and released all the same and the promise
 * rejects. No frame waits for the child (a fan-out holds a thousand at once): its idle promise
 * carries the rest.
 */
export function runOneShot(
  child: Agent,
  prompt: string,
  signal: AbortSignal,
  release: (child: Agent) => void,
  watch: (signal: AbortSignal, onAbort: () => void) => () => void = whenAborted,
): Promise<OneShotOutcome> {
  let unsubscribe: () => void;
  let idle: Promise<void>;
  try {
    unsubscribe = watch(signal, () => cancelForParent(child, signal));
  } catch (err) {
    return Promise.reject(err);
  }
  try {
    if (signal.aborted) cancelForParent(child, signal);
    else child.send(prompt, { from: 'parent' });
    idle = child.whenIdle();
  } catch (err) {
    try {
      endOneShot(child, unsubscribe, release);
    } catch (failure) {
      return Promise.reject(failure);
    }
    return Promise.reject(err);
  }
  return idle.then(() => {
    endOneShot(child, unsubscribe, release);
    return outcomeOf(child, signal);
  });
}

function cancelForParent(child: Agent, signal: AbortSignal): void {
  child.cancel(abortCauseOf(signal) === 'disposed' ? 'disposed' : 'parent');
}

function endOneShot(child: Agent, unsubscribe: () => void, release: (child: Agent) => void): void {
  unsubscribe();
  child.dispose();
  release(child);
}

function outcomeOf(child: Agent, signal: AbortSignal): OneShotOutcome {
  const end = child.lastTurnEnd;
  if (!end) return { status: 'aborted', agentId: child.id, cause: abortCauseOf(signal) ?? 'parent', partial: '' };
  const how = describeTurnEnd(end);
  switch (how.outcome) {
    case 'completed':
      return { status: 'completed', agentId: child.id, result: end.finalText };
    case 'stopped':
    case 'cancelled':
    case 'ended':
      return { status: 'aborted', agentId: child.id, cause: end.cause ?? 'parent', partial: end.finalText };
    case 'limit':
    case 'paused':
      return { status: 'budget', agentId: child.id, message: how.detail ?? 'run limit reached', partial: end.finalText };
    case 'blocked':
    case 'failed':
    case 'interrupted':
      return { status: 'error', agentId: child.id, message: how.detail ?? end.reason, partial: end.finalText };
  }
}
