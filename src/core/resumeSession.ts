import type { Agent, TurnEngine } from './agents/agent';
import type { AgentFactory, AgentSpec } from './agents/agentFactory';
import type { DurableSessionStore, EndedAgentLogs } from './agents/endedAgentLogs';
import type { AgentRegistry } from './agents/registry';
import { readSessionSnapshot } from './agents/sessionSnapshot';
import { ArborError } from './errors';
import { resolveInteractionPolicy } from './interaction/policy';
import { resolveLimits, type RunLimits, type RunLimitsInput } from './limits';
import type { ModelProvider } from './models/types';
import { Run } from './run';
import type { SessionHeader, SessionLog } from './sessions/types';

// A part (core/parts.ts): nothing here may import a module that loads parts, so what it needs of
// the runtime is the host below, and what a definition gives the agent is passed in.

export interface ResumeRootOptions {
  limits?: RunLimitsInput;
  model?: ModelProvider;
  /** A message from the user to start the resumed agent's next turn with. */
  message?: string;
  /**
   * For a session an external agent ran: the engine that reopens it (see external/). Without
   * one, or when it throws, the session is not resumed (EXTERNAL_NOT_RESUMABLE).
   */
  externalEngine?: (log: SessionLog) => TurnEngine<Agent> | Promise<TurnEngine<Agent>>;
}

/** What a resume needs of the runtime (runtimeResume.ts ResumeHost is one). */
export interface ResumeSessionHost {
  readonly store: DurableSessionStore | undefined;
  readonly agents: Pick<AgentRegistry, 'get' | 'add'>;
  readonly endedLogs: Pick<EndedAgentLogs, 'whenClosed'>;
  readonly factory: Pick<AgentFactory, 'create'>;
  readonly budgets: { newRunBudget(): ConstructorParameters<typeof Run>[4] };
  defaultLimits(): RunLimits;
  /** Throws AGENT_DISPOSED once the runtime has shut down. */
  assertOpen(): void;
}

/** Reopening a past session as a new unowned root: what runtimeResume.ts `resumeRoot` says, loaded at the first resume (a part of its own). */
export async function resumeRoot(
  host: ResumeSessionHost,
  sessionId: string,
  options: ResumeRootOptions,
  /** What the agent takes from the definition its header names (runtimeDelegation.ts, passed in: a part imports no module that loads parts). */
  definedFor: (header: SessionHeader) => Partial<AgentSpec>,
): Promise<Agent> {
  host.assertOpen();
  const store = host.store;
  if (!store) throw new ArborError('INPUT_INVALID', 'This runtime keeps sessions in memory only, so past sessions cannot be resumed.');
  const assertNotLive = (): void => {
    const live = host.agents.get(sessionId);
    if (live) throw new ArborError('SESSION_IN_USE', `"${live.label}" is already running in this window; find it in the Agents view.`, { id: sessionId });
  };
  assertNotLive();
  await host.endedLogs.whenClosed(sessionId);
  const log = await store.reopenLog(sessionId);
  try {
    if (log.header.external && !options.externalEngine) {
      throw new ArborError('EXTERNAL_NOT_RESUMABLE', `"${log.header.label}" was run by the external agent ${log.header.external}; its session can be read in History but not continued here. Run the agent again to carry on.`);
    }
    const engine = log.header.external ? await options.externalEngine?.(log) : undefined;
    host.assertOpen();
    assertNotLive();
    const policy = resolveInteractionPolicy({ interactionMode: log.header.interactionMode });
    const defaults = host.defaultLimits();
    const limits = options.limits ? resolveLimits({ ...defaults, ...options.limits }) : defaults;
    const run = new Run(limits, policy, options.model, undefined, host.budgets.newRunBudget());
    const defined = definedFor(log.header);
    const past = readSessionSnapshot(log, { resumeWaiting: true });
    const agent = host.factory.create({ label: log.header.label, kind: 'root', run, past, engine, ...defined });
    host.agents.add(agent);
    // A question or approval open when the session stopped is asked again before anything else.
    if (past.waiting) agent.continueWaitingCall(past.waiting.call, past.waiting.since);
    if (options.message !== undefined) agent.send(options.message, { from: 'user' });
    return agent;
  } catch (err) {
    // The resume's own failure is what the caller hears: closing only lets the session go.
    void log.close().catch(() => undefined);
    throw err;
  }
}
