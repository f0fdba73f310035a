import type { Agent, TurnEngine } from './agents/agent';
import type { AgentFactory } from './agents/agentFactory';
import type { AgentRegistry } from './agents/registry';
import type { SessionSnapshot } from './agents/sessionSnapshot';
import type { BudgetGuard } from './budgets/budgetGuard';
import type { DefinedAgentSpec, ModelResolver } from './definitions/definedAgents';
import type { AgentDefinitions } from './definitions/definitionSet';
import type { AgentDefinition } from './definitions/types';
import { ArborError } from './errors';
import { definedAgentsPart } from './parts';
import type { AgentKind } from './sessions/types';
import type { Writes } from './scopes/writes';
import type { BranchScopeRequest } from './scopes/writeScope';
import type { ContinuationManager } from './subagents/continuation';
import { checkDelegationLimits } from './subagents/delegationLimits';
import { runOneShot, type OneShotOutcome } from './subagents/oneShot';

/** What delegation needs of the runtime. */
export interface DelegationHost {
  readonly agents: AgentRegistry;
  readonly factory: AgentFactory;
  readonly definitions: AgentDefinitions;
  readonly resolveModel: ModelResolver | undefined;
  readonly manager: ContinuationManager;
  /** Budgets per branch: a child's own slice of the run's budget. */
  readonly budgets: Pick<BudgetGuard, 'slices'>;
  /** Throws AGENT_DISPOSED once the runtime has shut down. */
  assertOpen(): void;
  /** A one-shot child is done: it leaves the registry, its log closed even when the shutdown removed it first (one function per runtime, not per child). */
  readonly releaseOneShot: (child: Agent) => void;
  /** Each agent's write scope, given when it is made (src/core/scopes). */
  readonly writes: Writes;
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
 * Functions over the runtime's parts (not a class): the start bundle carries no wrapper for them.
 */
/** A one-shot child run to completion inside the parent's turn; it ends with that turn. */
export function runOneShotChild(host: DelegationHost, parent: Agent, label: string, prompt: string, signal: AbortSignal, definition?: AgentDefinition, request?: BranchScopeRequest): Promise<OneShotOutcome> {
  checkDelegation(host, parent);
  const budget = request?.budget;
  const slices = budget || definition?.budget ? host.budgets.slices : undefined;
  const slice = slices?.take(parent, label, budget, definition?.budget);
  const child = createChild(host, parent, 'one-shot', label, undefined, undefined, definition, request);
  const add = (): void => host.agents.add(child, { owner: parent });
  if (slices) slices.startWith(parent, slice, add);
  else add();
  return runOneShot(child, prompt, signal, host.releaseOneShot, (s, onAbort) => parent.whenTurnAborted(s, onAbort));
}

/** A continuable child of `parent`; with an engine it is an external agent; with a definition it is bounded by it. */
export function startContinuableChild(host: DelegationHost, parent: Agent, label: string, prompt: string, engine?: TurnEngine<Agent>, definition?: AgentDefinition, request?: BranchScopeRequest): Agent {
  checkDelegation(host, parent);
  const start = (): Agent => host.manager.start(parent, label, prompt, engine, definition, request);
  // The slice guard is a part: a delegation without a budget never loads it.
  const budget = request?.budget;
  const slices = budget || definition?.budget ? host.budgets.slices : undefined;
  return slices ? slices.startWith(parent, slices.take(parent, label, budget, definition?.budget), start) : start();
}

/** Makes a child of `parent` (a continuable one is registered under it); a reopened one keeps its definition's bounds. */
export function createChild(host: DelegationHost, parent: Agent, kind: AgentKind, label: string, past?: SessionSnapshot, engine?: TurnEngine<Agent>, definition?: AgentDefinition, request?: BranchScopeRequest): Agent {
  const defined = definedSpec(host, parent, past ? definitionOf(host, past.log.header) : definition);
  // Narrowed into the parent's before anything is made: a glob a scope cannot hold changes nothing.
  const { scope } = host.writes.guard.childScope(parent, defined.definition, request?.scope);
  const agent = host.factory.create({ label, kind, run: parent.run, parent, past, engine, ...defined });
  host.writes.set(agent, scope);
  if (kind === 'continuable') host.agents.add(agent, { parent });
  return agent;
}

/**
 * The definition a reopened session was started with, as it is now: it goes on under the same
 * name's bounds. One whose definition is gone is not reopened unbounded (DEFINITION_UNKNOWN).
 */
export function definitionOf(host: Pick<DelegationHost, 'definitions'>, header: { definition?: { name: string } }): AgentDefinition | undefined {
  return header.definition ? host.definitions.get(header.definition.name) : undefined;
}

/** What a new agent takes from its definition and its parent's bounds and model (nothing, without either). */
export function definedSpec(host: Pick<DelegationHost, 'resolveModel'>, parent: Agent | undefined, definition: AgentDefinition | undefined): DefinedAgentSpec {
  if (!definition && !parent?.bounds && !parent?.model) return {};
  return definedAgentsPart().definedAgentSpec(parent, definition, host.resolveModel);
}

function checkDelegation(host: DelegationHost, parent: Agent): void {
  host.assertOpen();
  // A child needs a live parent: one that has ended (or whose End has begun) would leave it
  // with no parent to report to and no ancestry to be stopped through.
  if (!host.agents.isLive(parent) || parent.disposed || host.manager.isEnding(parent)) {
    throw new ArborError('AGENT_DISPOSED', `"${parent.label}" has ended; it cannot start subagents.`);
  }
  checkDelegationLimits(parent, host.agents);
}
