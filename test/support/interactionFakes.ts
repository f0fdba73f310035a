import { ArborError } from '../../src/core/errors';
import type { InteractionPrompt, InteractionProvider, LiveAgentDirectory } from '../../src/core/interaction';
import { MemorySessionLog } from '../../src/core/sessions/memoryLog';
import type { Answer, AgentKind, Question } from '../../src/core/sessions/types';
import type { ToolCaller } from '../../src/core/tools/context';

/** A stand-in for the agent registry: exact objects, each with an optional runtime owner. */
export class FakeDirectory implements LiveAgentDirectory {
  private readonly entries = new Map<string, { agent: object; owner?: object }>();

  add(agent: { id: string }, owner?: object): void {
    this.entries.set(agent.id, { agent, owner });
  }
  remove(id: string): void {
    this.entries.delete(id);
  }
  get(id: string): object | undefined {
    return this.entries.get(id)?.agent;
  }
  isRoot(agent: object): boolean {
    const id = (agent as { id?: unknown }).id;
    const entry = typeof id === 'string' ? this.entries.get(id) : undefined;
    return entry !== undefined && entry.agent === agent && entry.owner === undefined;
  }
}

export interface FakeAgent extends ToolCaller {
  log: MemorySessionLog;
}

export function makeAgent(
  id: string,
  options: { label?: string; kind?: AgentKind; parentSession?: string; delegationDepth?: number; planMode?: boolean } = {},
): FakeAgent {
  const label = options.label ?? id;
  const log = new MemorySessionLog({
    type: 'header',
    version: 1,
    id,
    createdAt: '2025-01-01T00:00:00.000Z',
    delegationDepth: options.delegationDepth ?? 0,
    ...(options.parentSession ? { parentSession: options.parentSession } : {}),
    kind: options.kind ?? 'root',
    label,
    interactionMode: 'interactive',
  });
  return { id, label, kind: options.kind ?? 'root', log, planMode: options.planMode ?? false };
}

/** Records every prompt; answers with `respond` (default: the first option of each question). */
export class FakeProvider implements InteractionProvider {
  readonly prompts: InteractionPrompt[] = [];
  respond: (prompt: InteractionPrompt) => Promise<Answer[]> = (prompt) =>
    Promise.resolve(prompt.questions.map((q) => ({ id: q.id, selected: q.options.length ? [q.options[0].label] : [], ...(q.options.length ? {} : { custom: 'text' }) })));

  ask(prompt: InteractionPrompt): Promise<Answer[]> {
    this.prompts.push(prompt);
    return this.respond(prompt);
  }

  get calls(): number {
    return this.prompts.length;
  }

  choose(label: string, custom?: string): this {
    this.respond = (prompt) => Promise.resolve(prompt.questions.map((q) => ({ id: q.id, selected: label ? [label] : [], ...(custom !== undefined ? { custom } : {}) })));
    return this;
  }

  dismiss(): this {
    this.respond = () => Promise.reject(new ArborError('ASK_CANCELLED', 'The human dismissed the prompt.'));
    return this;
  }

  /** Never answers; settles only by rejecting when its signal aborts, as the real UI does. */
  hang(): this {
    this.respond = (prompt) =>
      new Promise((_, reject) => prompt.signal.addEventListener('abort', () => reject(new ArborError('ASK_CANCELLED', 'closed')), { once: true }));
    return this;
  }
}

export const oneQuestion = (overrides: Partial<Question> = {}): Question[] => [
  { id: 'db', question: 'Which database should the service use?', header: 'Database', options: [{ label: 'Postgres' }, { label: 'SQLite' }], ...overrides },
];

export async function rejection(promise: Promise<unknown>): Promise<ArborError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ArborError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}
