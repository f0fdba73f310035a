import * as z from 'zod';
import { ArborError, messageOf } from '../errors';
import { Emitter, type Disposable } from '../events';
import { once } from '../once';
import type { Answer, Question } from '../sessions/types';
import { checkAnswers, describeIssues, questionBatchSchema } from './questions';

/**
 * The live agents of this process, as the interaction seam needs to see them. The agent
 * registry satisfies it structurally. Identity is by object: `get(id)` returns the exact live
 * Agent, so a stale object that reuses a live id is told apart from the live one.
 */
export interface LiveAgentDirectory {
  get(id: string): object | undefined;
  /**
   * True when this exact object is live and has no runtime owner (AgentRegistry.isUnowned): the
   * design notes' `ctx.agents.roots()` test, so it keeps their name.
   */
  isRoot(agent: object): boolean;
}

/** Who asks. At runtime this is the exact live Agent object, passed on unchanged. */
export interface InteractionCaller {
  readonly id: string;
  readonly label: string;
  /** When the prompt it opens now was first opened, before a reload (a live Agent says it once). */
  takeWaitingSince?(): number | undefined;
}

/**
 * Why a prompt is opened, so the editor can present it well: a clarifying question, a plan
 * waiting for approval (the plan is the `detail`), or consent for an action (the action is
 * the `detail`).
 */
export type AskIntent = 'clarify' | 'plan-approval' | 'approval';

export const MAX_DETAIL_LENGTH = 50_000;

export interface AskRequest {
  questions: readonly Question[];
  agent?: InteractionCaller;
  signal?: AbortSignal;
  /** Defaults to 'clarify'. */
  intent?: AskIntent;
  /** Longer text the prompt shows beside the questions (a plan, a command line). */
  detail?: string;
  /** Who asks, in words (an approval's: label, kind, definition, place in the tree); the prompt's title names it. */
  asker?: string;
}

/** What the question UI receives. `agent` is a copy: the UI never holds the live Agent. */
export interface InteractionPrompt {
  readonly id: string;
  readonly questions: readonly Question[];
  readonly agent?: { readonly id: string; readonly label: string };
  readonly intent: AskIntent;
  /**
   * The whole action or plan the human decides on. A provider shows all of it, and before the
   * human can answer: an approval is only as good as what the human could read.
   */
  readonly detail?: string;
  /** Who asks, in words, when the asker gave more than its label. */
  readonly asker?: string;
  /** Aborted when the asker no longer waits: the UI must close the prompt. */
  readonly signal: AbortSignal;
}

/**
 * The human end of the seam (the quick picks in the editor). Resolves with one answer per
 * question; rejects with ASK_CANCELLED when the human dismisses the prompt.
 */
export interface InteractionProvider {
  ask(prompt: InteractionPrompt): Promise<Answer[]>;
}

/** An open prompt, for "waiting for you" indicators and the badge. */
export interface PendingInteraction extends Omit<InteractionPrompt, 'signal'> {
  /** Epoch milliseconds when the prompt opened. */
  readonly openedAt: number;
}

export type PendingOutcome = 'answered' | 'cancelled' | 'aborted' | 'failed';

export type PendingChange =
  | { readonly kind: 'opened'; readonly interaction: PendingInteraction }
  | { readonly kind: 'settled'; readonly interaction: PendingInteraction; readonly outcome: PendingOutcome };

/**
 * Said to any caller that may not reach the human, whichever tool it came through
 * (ask_user_question, exit_plan_mode, an approval). It names the only return path that
 * exists: the caller's final result, which its parent receives through delegation.
 */
export const DELEGATED_CALLER_MESSAGE =
  'You cannot ask the human directly: you are running as a delegated agent. Do not wait for an answer. ' +
  'Finish your work as far as you safely can and include the unresolved question or decision in your final result; ' +
  'your parent receives that result and decides what to do next.';

export const CALLER_NOT_LIVE_MESSAGE =
  'You cannot ask the human directly: this agent is not a live agent of the current session. Do not wait for an answer. ' +
  'Include the unresolved question or decision in your final result; whoever started you receives that result.';

const askIntentSchema = once(() => z.enum(['clarify', 'plan-approval', 'approval']));
const askShapeSchema = once(() => z.object({
  questions: questionBatchSchema(),
  intent: askIntentSchema().default('clarify'),
  detail: z.string().max(MAX_DETAIL_LENGTH).optional(),
  asker: z.string().max(1_000).optional(),
}));

export interface UserInteractionServiceOptions {
  /** The live agents; without it, every call that names an agent is refused. */
  agents?: LiveAgentDirectory;
  now?: () => number;
  /** Hears a listener of onDidChangePending that throws; process warnings by default. */
  onProblem?: (problem: string, err: unknown) => void;
}

/**
 * The one door from agents to the human. Every consumer (ask_user_question, exit_plan_mode,
 * approvals, programmatic callers) goes through `ask()`, so the guards below hold for all of
 * them: a rejected call never reaches the provider and never opens UI.
 */
export class UserInteractionService implements Disposable {
  private readonly agents: LiveAgentDirectory | undefined;
  private readonly now: () => number;
  private provider: InteractionProvider | undefined;
  private readonly open = new Map<string, { interaction: PendingInteraction; close: (outcome: PendingOutcome, error: ArborError) => void; provider: InteractionProvider }>();
  private readonly changes: Emitter<PendingChange>;
  private nextId = 1;

  constructor(options: UserInteractionServiceOptions = {}) {
    this.agents = options.agents;
    this.now = options.now ?? Date.now;
    this.changes = new Emitter(options.onProblem);
  }

  /** Fires when a prompt opens and when it settles. */
  readonly onDidChangePending = (listener: (change: PendingChange) => void): Disposable => this.changes.on(listener);

  /** Open prompts, oldest first. */
  pending(): readonly PendingInteraction[] {
    return [...this.open.values()].map((entry) => entry.interaction);
  }

  get hasProvider(): boolean {
    return this.provider !== undefined;
  }

  /** Only one question UI at a time; disposing the registration closes its open prompts. */
  registerProvider(provider: InteractionProvider): Disposable {
    if (this.provider) {
      throw new ArborError('DUPLICATE_PROVIDER', 'A question provider is already registered; dispose it before registering another.');
    }
    this.provider = provider;
    let disposed = false;
    return {
      dispose: () => {
        if (disposed) return;
        disposed = true;
        if (this.provider === provider) this.provider = undefined;
        for (const entry of [...this.open.values()]) {
          if (entry.provider === provider) {
            entry.close('failed', new ArborError('NO_PROVIDER', 'The question UI closed before the human answered.'));
          }
        }
      },
    };
  }

  /**
   * Asks the human. Guards, in this order: aborted signal (ASK_ABORTED), empty batch
   * (EMPTY_QUESTIONS), caller not the exact live agent (CALLER_NOT_LIVE), caller owned by
   * another agent (DELEGATED_CALLER), malformed questions or intent (BAD_INTENT), no UI
   * (NO_PROVIDER). Then the provider; if the caller's signal aborts while the prompt is
   * open the call settles at once with ASK_ABORTED and the provider's signal aborts.
   */
  ask(request: AskRequest): Promise<Answer[]> {
    return this.guardedAsk(request, false);
  }

  /**
   * A subagent's approval held for the person (arbor.approvals.subagents `ask`, decided by the
   * approval seam and the run's policy): the same guards as `ask()` but the one that refuses
   * owned callers, and only for an approval. Questions and plans never come through here.
   */
  askHeldApproval(request: AskRequest & { intent: 'approval'; agent: InteractionCaller }): Promise<Answer[]> {
    return this.guardedAsk({ ...request, intent: 'approval' }, true);
  }

  private async guardedAsk(request: AskRequest, heldApproval: boolean): Promise<Answer[]> {
    const { agent, signal } = request;
    if (signal?.aborted) {
      throw new ArborError('ASK_ABORTED', 'The question was not asked: the turn was cancelled.');
    }
    if (Array.isArray(request.questions) && request.questions.length === 0) {
      throw new ArborError('EMPTY_QUESTIONS', 'Ask at least one question.');
    }
    if (agent !== undefined) {
      if (!this.agents || this.agents.get(agent.id) !== agent) {
        throw new ArborError('CALLER_NOT_LIVE', CALLER_NOT_LIVE_MESSAGE, { agentId: agent.id });
      }
      if (!heldApproval && !this.agents.isRoot(agent)) {
        throw new ArborError('DELEGATED_CALLER', DELEGATED_CALLER_MESSAGE, { agentId: agent.id });
      }
    }
    const shape = askShapeSchema().safeParse({ questions: request.questions, intent: request.intent, detail: request.detail, asker: request.asker });
    if (!shape.success) {
      throw new ArborError('BAD_INTENT', `The questions cannot be asked as written: ${describeIssues(shape.error)}. Fix them and ask again.`);
    }
    const provider = this.provider;
    if (!provider) {
      throw new ArborError('NO_PROVIDER', 'No question UI is available, so the human cannot be asked right now.');
    }
    return this.dispatch(provider, shape.data, agent, signal);
  }

  private dispatch(
    provider: InteractionProvider,
    shape: z.output<ReturnType<typeof askShapeSchema>>,
    agent: InteractionCaller | undefined,
    signal: AbortSignal | undefined,
  ): Promise<Answer[]> {
    const id = `ask-${this.nextId++}`;
    const questions: readonly Question[] = Object.freeze(shape.questions.map((q) => Object.freeze(q)));
    const caller = agent ? Object.freeze({ id: agent.id, label: agent.label }) : undefined;
    const interaction: PendingInteraction = Object.freeze({
      id,
      questions,
      ...(caller ? { agent: caller } : {}),
      intent: shape.intent,
      ...(shape.detail !== undefined ? { detail: shape.detail } : {}),
      ...(shape.asker !== undefined ? { asker: shape.asker } : {}),
      openedAt: agent?.takeWaitingSince?.() ?? this.now(),
    });
    const promptAbort = new AbortController();

    return new Promise<Answer[]>((resolve, reject) => {
      let settled = false;
      const onCallerAbort = () =>
        settle('aborted', new ArborError('ASK_ABORTED', 'The question was withdrawn: the turn was cancelled before the human answered.'));

      const settle = (outcome: PendingOutcome, error?: ArborError, answers?: Answer[]) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onCallerAbort);
        this.open.delete(id);
        // The UI learns through its signal that nobody waits for this prompt any more.
        if (outcome !== 'answered' && outcome !== 'cancelled') promptAbort.abort(error);
        this.changes.fire({ kind: 'settled', interaction, outcome });
        if (error) reject(error);
        else resolve(answers ?? []);
      };

      this.open.set(id, { interaction, provider, close: (outcome, error) => settle(outcome, error) });
      signal?.addEventListener('abort', onCallerAbort, { once: true });
      this.changes.fire({ kind: 'opened', interaction });

      let reply: Promise<Answer[]>;
      try {
        reply = provider.ask({ ...interaction, signal: promptAbort.signal });
      } catch (err) {
        reply = Promise.reject(err);
      }
      reply.then(
        (raw) => {
          const checked = checkAnswers(questions, raw);
          if (checked.ok) settle('answered', undefined, checked.answers);
          else settle('failed', new ArborError('BAD_ANSWER', `The question UI returned answers that do not fit the questions: ${checked.problem}.`));
        },
        (err: unknown) => {
          if (err instanceof ArborError && err.code === 'ASK_CANCELLED') settle('cancelled', err);
          else if (err instanceof ArborError) settle('failed', err);
          else settle('failed', new ArborError('INTERNAL', `The question UI failed: ${messageOf(err)}`));
        },
      );
    });
  }

  /** Closes every open prompt (ASK_ABORTED) and stops firing events. */
  dispose(): void {
    for (const entry of [...this.open.values()]) {
      entry.close('aborted', new ArborError('ASK_ABORTED', 'The question was withdrawn: the runtime is shutting down.'));
    }
    this.provider = undefined;
    this.changes.dispose();
  }
}
