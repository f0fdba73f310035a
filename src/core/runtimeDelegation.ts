import type { Agent, TurnEngine } from './agents/agent';
import type { AgentFactory } from './agents/agentFactory';
import type { AgentRegistry } from './agents/registry';
import type { SessionSnapshot } from './agents/sessionSnapshot';
import type { DefinedAgentSpec, ModelResolver } from './definitions/definedAgents';
import type { AgentDefinitions } from './definitions/definitionSet';
import type { AgentDefinition } from './definitions/types';
import { ArborError } from './errors';
import { definedAgentsPart } from './parts';
import type { AgentKind } from './sessions/types';
import type { ContinuationManager } from './subagents/continuation';
import { checkDelegationLimits } from './subagents/delegationLimits';
import { runOneShot, type OneShotOutcome } from './subagents/oneShot';

/** What delegation needs of the runtime; the manager is asked for when used (it is made with this one's createChild). */
export interface DelegationHost {
  readonly agents: AgentRegistry;
  readonly factory: AgentFactory;
  readonly definitions: AgentDefinitions;
  readonly resolveModel: ModelResolver | undefined;
  manager(): ContinuationManager;
  /** Throws AGENT_DISPOSED once the runtime has shut down. */
  assertOpen(): void;
  /** An agent left the registry without the channel hearing it (a one-shot child the shutdown removed). */
  agentLeft(agent: Agent): void;
}

/**
 * The runtime's delegation: who may start a child (a live parent whose End has not begun, within
 * the run's depth and live-children limits), how a child is made (its parent's run, its
 * definition's and its ancestors' bounds, registered under its parent or owned by its holder),
 * and the definition a reopened session goes on under.
 *
 * Invariants: a child is never made for a parent that is not live, so every child has a parent
 * to report to and an ancestry to be stopped through; a reopened session is bounded by its
 * definition as it is now (never unbounded because the definition is gone: DEFINITION_UNKNOWN);
 * the definitions' part is loaded only when a definition or a bounded parent is involved.
 */
export class RuntimeDelegation {
  constructor(private readonly host: DelegationHost) {}

  /** A one-shot child run to completion inside the parent's turn; it ends with that turn. */
  runOneShot(parent: Agent, label: string, prompt: string, signal: AbortSignal, definition?: AgentDefinition): Promise<OneShotOutcome> {
    this.checkDelegation(parent);
    const child = this.createChild(parent, 'one-shot', label, undefined, undefined, definition);
    this.host.agents.add(child, { owner: parent });
    return runOneShot(child, prompt, signal, this.releaseOneShot, (s, onAbort) => parent.whenTurnAborted(s, onAbort));
  }

  /** A continuable child of `parent`; with an engine it is an external agent; with a definition it is bounded by it. */
  startContinuable(parent: Agent, label: string, prompt: string, engine?: TurnEngine<Agent>, definition?: AgentDefinition): Agent {
    this.checkDelegation(parent);
    return this.host.manager().start(parent, label, prompt, engine, definition);
  }

  /** Makes a child of `parent` (a continuable one is registered under it); a reopened one keeps its definition's bounds. */
  createChild(parent: Agent, kind: AgentKind, label: string, past?: SessionSnapshot, engine?: TurnEngine<Agent>, definition?: AgentDefinition): Agent {
    const defined = this.definedSpec(parent, past ? this.definitionOf(past.log.header) : definition);
    const agent = this.host.factory.create({ label, kind, run: parent.run, parent, past, engine, ...defined });
    if (kind === 'continuable') this.host.agents.add(agent, { parent });
    return agent;
  }

  /**
   * The definition a reopened session was started with, as it is now: it goes on under the same
   * name's bounds. One whose definition is gone is not reopened unbounded (DEFINITION_UNKNOWN).
   */
  definitionOf(header: { definition?: { name: string } }): AgentDefinition | undefined {
    return header.definition ? this.host.definitions.get(header.definition.name) : undefined;
  }

  /** What a new agent takes from its definition and its parent's bounds and model (nothing, without either). */
  definedSpec(parent: Agent | undefined, definition: AgentDefinition | undefined): DefinedAgentSpec {
    if (!definition && !parent?.bounds && !parent?.model) return {};
    return definedAgentsPart().definedAgentSpec(parent, definition, this.host.resolveModel);
  }

  private checkDelegation(parent: Agent): void {
    this.host.assertOpen();
    // A child needs a live parent: one that has ended (or whose End has begun) would leave it
    // with no parent to report to and no ancestry to be stopped through.
    if (!this.host.agents.isLive(parent) || parent.disposed || this.host.manager().isEnding(parent)) {
      throw new ArborError('AGENT_DISPOSED', `"${parent.label}" has ended; it cannot start subagents.`);
    }
    checkDelegationLimits(parent, this.host.agents);
  }

  /** A one-shot child is done: it leaves the registry (one function for the runtime, not one per child). */
  private readonly releaseOneShot = (done: Agent): void => {
    // A child the shutdown already removed still gets its log closed.
    if (!this.host.agents.remove(done)) this.host.agentLeft(done);
  };
}
