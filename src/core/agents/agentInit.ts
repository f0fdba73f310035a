import type { AgentBounds } from '../definitions/bounds';
import type { AgentDefinition } from '../definitions/types';
import type { ArborError } from '../errors';
import type { ChatMessage, ModelProvider } from '../models/types';
import type { AgentKind, PlanItem, SessionEvent, SessionLog } from '../sessions/types';
import type { AgentRun } from './agentRun';
import type { InboxItem } from './inbox';
import type { TurnEnd } from './turnLoop';

/**
 * What an agent is made from and what it says to its host: the types of agent.ts that do not
 * need the Agent class itself, so the agent's parts (agentTurns.ts, agentQueue.ts) and readers
 * of its changes can use them without importing it. agent.ts exports each under its own name.
 */
export type AgentStatus = 'idle' | 'running';

/** One change of an agent, as its host hears it (Runtime.agentChanged puts it on the channel). */
export type AgentChange =
  | { type: 'status' }
  | { type: 'turn_start'; turn: number }
  | { type: 'turn_end'; end: TurnEnd }
  | { type: 'log'; event: SessionEvent }
  | { type: 'usage' }
  /** The running turn's tools started, or their results are in (see activityOf). */
  | { type: 'activity' }
  /** The session log could not save something, or saved it after all (see `Agent.sessionProblem`). */
  | { type: 'session_problem'; problem: ArborError | undefined }
  /** A Stop was sent but the agent has not ended its turn within its grace period (external agents). */
  | { type: 'stop_overdue'; graceMs: number }
  /** The files it shares with another live agent changed (its node's ⚠, src/core/scopes). */
  | { type: 'envelope' }
  | { type: 'disposed' };

/** What an Agent is made from (`AgentInit` in agent.ts), over its host's and engine's types. */
export interface AgentInitOf<Host, Engine> {
  id: string;
  label: string;
  kind: AgentKind;
  delegationDepth: number;
  log: SessionLog;
  host: Host;
  run: AgentRun;
  /** Creation order within the process (a counter, not a time): siblings are listed by it, then by id. */
  creationOrder: number;
  planMode?: boolean;
  /** The conversation so far, when reopening a past session. */
  conversation?: ChatMessage[];
  /** Turns already recorded in a reopened session. */
  turnsSoFar?: number;
  /** Messages a reopened session had queued but never claimed: they come back held (`reload`). */
  pending?: readonly InboxItem[];
  /** The last queue id a reopened session used. */
  lastQueueId?: number;
  /** Runs the turns instead of the model turn loop (an external agent). */
  engine?: Engine;
  /** The definition it was started with (name and file) and what definitions allow it (definitions/bounds.ts). */
  definition?: AgentDefinition;
  bounds?: AgentBounds;
  /** Its definition's model, used instead of the run's. */
  model?: ModelProvider;
  plan?: readonly PlanItem[];
}
