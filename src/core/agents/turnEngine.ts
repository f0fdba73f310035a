import { isoNow } from '../clock';
import { messageOf } from '../errors';
import type { RunBudget } from '../limits';
import type { ChatMessage } from '../models/types';
import type { SessionEvent } from '../sessions/types';
import type { InboxItem } from './inbox';
import type { TurnEnd } from './turnLoop';

/**
 * Runs an agent's turns in place of the model turn loop: an external agent's own process does
 * its turns, and the agent keeps the same surface (status, cancel, inbox, session log), so the
 * tree, Stop, End and History need no special case. `runTurn` should not throw (every way a turn
 * ends is a TurnEnd); a throw still ends the turn, as an error. The message that started the
 * turn is claimed and recorded before it is called.
 */
export interface TurnEngine<A> {
  /** What runs the turns, as a person names it (an external agent's configured name). */
  readonly name: string;
  /** What the agent's node says about how its engine runs, when it has something to say (an external agent that lost its memory). */
  readonly notice?: EngineNotice;
  /** False when Stop cannot reach this engine's work on its own (a subagent its agent does not let clients cancel): the node offers no Stop. */
  readonly stoppable?: boolean;
  runTurn(turn: EngineTurn<A>): Promise<TurnEnd>;
  /** The agent ended: release what the engine holds (an external agent's process). */
  dispose(): void;
}

export interface EngineNotice {
  /** A few words for the node's description: "fresh memory: cannot load its earlier session". */
  readonly text: string;
  /** A sentence for its tooltip: what it means and why. */
  readonly detail: string;
}

export interface EngineTurn<A> {
  readonly agent: A;
  readonly text: string;
  readonly turn: number;
  readonly signal: AbortSignal;
  /** A Stop was sent and the agent has not ended its turn within `graceMs`. */
  stopOverdue(graceMs: number): void;
  /** Tokens the engine's agent reports it used: counted on the agent and by its run's budgets, as a model response's are. */
  recordUsage(inputTokens: number, outputTokens: number): void;
  /** A cost the engine's agent reports itself (beyond what the price table makes of its tokens). */
  recordCost(amount: number): void;
}

interface EngineOwner {
  readonly id: string;
  readonly conversation: ChatMessage[];
  readonly run: { readonly budget: Pick<RunBudget, 'recordUsage' | 'recordCost' | 'countModelCall' | 'turnsUsed'> };
  append(event: SessionEvent): void;
  addUsage(inputTokens: number, outputTokens: number): void;
}

/** One engine turn: record its start and the claimed message, then let the engine run it. */
export async function runEngineTurn<A extends EngineOwner>(
  engine: TurnEngine<A>,
  agent: A,
  first: InboxItem,
  turn: number,
  signal: AbortSignal,
  notify: (change: { type: 'turn_start'; turn: number } | { type: 'stop_overdue'; graceMs: number } | { type: 'usage' }) => void,
): Promise<TurnEnd> {
  agent.append({ type: 'turn_start', at: isoNow(), turn });
  notify({ type: 'turn_start', turn });
  agent.conversation.push({ role: 'user', content: first.text });
  agent.append({ type: 'user_message', at: isoNow(), text: first.text, from: first.from, queuedId: first.id });
  // The engine's own model calls are not seen: its prompt turn counts as one turn and one model
  // call of the run's and the branch's budgets (AgentTurns asked their gate before claiming).
  agent.run.budget.turnsUsed++;
  agent.run.budget.countModelCall(agent.id);
  notify({ type: 'usage' });
  try {
    const recordUsage = (inputTokens: number, outputTokens: number): void => {
      agent.addUsage(inputTokens, outputTokens);
      agent.run.budget.recordUsage(agent.id, engine.name, inputTokens, outputTokens);
      agent.append({ type: 'usage', at: isoNow(), inputTokens, outputTokens });
      notify({ type: 'usage' });
    };
    const recordCost = (amount: number): void => {
      agent.run.budget.recordCost(agent.id, amount);
      notify({ type: 'usage' });
    };
    return await engine.runTurn({ agent, text: first.text, turn, signal, stopOverdue: (graceMs) => notify({ type: 'stop_overdue', graceMs }), recordUsage, recordCost });
  } catch (err) {
    return { turn, reason: 'error', message: messageOf(err), finalText: '' };
  }
}
