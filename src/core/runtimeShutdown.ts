import type { Agent } from './agents/agent';
import type { EndedAgentLogs } from './agents/endedAgentLogs';
import type { AgentRegistry } from './agents/registry';
import type { RuntimeEventChannel } from './agents/runtimeEvent';
import type { BudgetGuard } from './budgets';
import type { ContinuationManager } from './subagents/continuation';

/** What the runtime's shutdown takes apart. */
export interface ShutdownParts {
  readonly agents: AgentRegistry;
  readonly events: RuntimeEventChannel;
  readonly budgets: BudgetGuard;
  readonly manager: ContinuationManager;
  readonly endedLogs: EndedAgentLogs;
  /** The human's service, when the runtime made it (one the editor gave is the editor's to dispose). */
  readonly ownInteraction: { dispose(): void } | undefined;
  /** How long an aborted turn is given to record its end before its log is written as it stands. */
  readonly waitMs: number;
}

/** Resolves when `promise` settles or after `ms`, whichever comes first. */
export function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([promise.then(() => undefined, () => undefined), late]).finally(() => clearTimeout(timer));
}

/**
 * The runtime's shutdown (Runtime.dispose, once): every turn aborted, every agent disposed,
 * every listener released. Resolves once every log is written, each aborted turn's end
 * included. Invariants: a shutdown is not announced agent by agent (the channel closes before
 * the live agents leave the registry), and the logs of agents still live are flushed, not
 * closed as if they had ended, so their sessions can be resumed; it always settles, because a
 * turn that has not recorded its end within `waitMs` is written as it stands, and a write (or an
 * ended agent's close) still not done `waitMs` later is left to the store's exit flush.
 */
export function shutDown(parts: ShutdownParts): Promise<void> {
  const { agents, events, endedLogs, waitMs } = parts;
  parts.budgets.dispose();
  parts.manager.dispose();
  const writes: Promise<void>[] = [];
  const live: Agent[] = agents.all();
  for (const agent of live) {
    agent.dispose();
    // The aborted turn records its end a moment later: write after that, not before.
    // A write the disk keeps waiting is not waited for past the same limit: the exit flush writes what it left.
    writes.push(settledWithin(agent.whenIdle(), waitMs).then(() => settledWithin(agent.log.flush(), waitMs)));
  }
  writes.push(...endedLogs.pending().map((closing) => settledWithin(closing, waitMs)));
  events.dispose();
  for (const agent of live) agents.remove(agent);
  agents.dispose();
  parts.ownInteraction?.dispose();
  return Promise.all(writes).then(() => undefined);
}
