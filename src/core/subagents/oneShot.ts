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
 * on the signal per child.
 */
export async function runOneShot(
  child: Agent,
  prompt: string,
  signal: AbortSignal,
  release: (child: Agent) => void,
  watch: (signal: AbortSignal, onAbort: () => void) => () => void = whenAborted,
): Promise<OneShotOutcome> {
  const onAbort = (): void => {
    child.cancel(abortCauseOf(signal) === 'disposed' ? 'disposed' : 'parent');
  };
  const unsubscribe = watch(signal, onAbort);
  try {
    if (signal.aborted) onAbort();
    else child.send(prompt, { from: 'parent' });
    await child.whenIdle();
  } finally {
    unsubscribe();
    child.dispose();
    release(child);
  }
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
