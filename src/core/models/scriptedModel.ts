import * as z from 'zod';
import { ArborError, type ArborErrorCode } from '../errors';
import { once } from '../once';
import type { ChatMessage, ModelChunk, ModelProvider, ModelRequest, ToolCall } from './types';

/*
 * The scripted model: a deterministic provider driven by a JSON script. It is the demo model
 * (no API key needed) and the test double. Format (see docs/scripted-model.md):
 *
 * { "version": 1,
 *   "agents": {
 *     "<agent label, or * for any other>": {
 *       "turns": [ <turn>, ... ],            // turn N of the agent uses entry N
 *       "afterLastTurn": "repeat-last" | "echo"
 *     } } }
 *
 * A <turn> is a list of steps (one per model call in that turn), or { "steps": [...], "loop": true }
 * to cycle through its steps until the turn is stopped or hits a limit. A step:
 *   { "text": "...", "toolCalls": [{ "name": "...", "arguments": { ... } }],
 *     "delayMs": 200,                  // wait first (abortable)
 *     "hang": true,                    // wait until the turn is aborted, then observe the abort
 *     "error": { "code": "MODEL_UNAVAILABLE", "message": "..." },
 *     "usage": { "inputTokens": 10, "outputTokens": 5 } }
 * Text and string arguments may use {{lastMessage}} (the latest user message) and
 * {{agent:<label>}} (the agent_id of the subagent with that label that this agent started).
 */

const stepSchema = once(() => z
  .object({
    text: z.string().optional(),
    toolCalls: z
      .array(
        z.object({
          name: z.string().min(1),
          arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).default({}),
        }),
      )
      .optional(),
    delayMs: z.number().int().min(0).max(3_600_000).optional(),
    hang: z.boolean().optional(),
    error: z.object({ code: z.string().optional(), message: z.string() }).optional(),
    usage: z.object({ inputTokens: z.number().int().min(0), outputTokens: z.number().int().min(0) }).optional(),
  })
  .strict());

const turnSchema = once(() => z.union([z.array(stepSchema()).min(1), z.object({ steps: z.array(stepSchema()).min(1), loop: z.boolean().default(false) }).strict()]));

const agentScriptSchema = once(() => z.object({ turns: z.array(turnSchema()).min(1), afterLastTurn: z.enum(['repeat-last', 'echo']).default('echo') }).strict());

export const scriptSchema = once(() => z
  .object({
    version: z.literal(1),
    agents: z.record(z.string(), agentScriptSchema()),
  })
  .strict());

export type ModelScript = z.input<ReturnType<typeof scriptSchema>>;
type AgentScript = z.output<ReturnType<typeof agentScriptSchema>>;
/**
 * Agent labels are data, not property names: they live in a Map, so a label such as
 * `constructor` or `__proto__` is an ordinary key and never reaches Object.prototype.
 */
interface ParsedScript {
  version: 1;
  agents: ReadonlyMap<string, AgentScript>;
}
type Step = z.output<ReturnType<typeof stepSchema>>;

/** Parse a script from untrusted JSON text or a value; invalid scripts get a SCRIPT_INVALID error. */
export function parseScript(input: unknown): ParsedScript {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (err) {
      throw new ArborError('SCRIPT_INVALID', `The model script is not valid JSON: ${(err as Error).message}`);
    }
  }
  const invalid = (error: z.ZodError): ArborError => new ArborError('SCRIPT_INVALID', `The model script is invalid:\n${z.prettifyError(error)}`);
  const parsed = scriptSchema().safeParse(value);
  if (!parsed.success) throw invalid(parsed.error);
  // A record schema leaves out a `__proto__` key (it would replace the output's prototype), so
  // every entry is read from the input's own keys and checked one by one.
  const agents = new Map<string, AgentScript>();
  for (const [label, entry] of Object.entries((value as { agents: Record<string, unknown> }).agents)) {
    const one = agentScriptSchema().safeParse(entry);
    if (!one.success) throw invalid(new z.ZodError(one.error.issues.map((issue) => ({ ...issue, path: ['agents', label, ...issue.path] }))));
    agents.set(label, one.data);
  }
  return { version: parsed.data.version, agents };
}

export interface ScriptedModelOptions {
  /** Called when a hanging step observes its abort (benchmarks measure this moment). */
  onAbortObserved?: (request: ModelRequest) => void;
}

export class ScriptedModel implements ModelProvider {
  readonly id = 'scripted';
  readonly label = 'Scripted demo model';
  private readonly script: ParsedScript;
  private callIds = 0;

  constructor(script: unknown, private readonly options: ScriptedModelOptions = {}) {
    this.script = parseScript(script);
  }

  stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    return { [Symbol.asyncIterator]: () => this.respond(request)[Symbol.asyncIterator]() };
  }

  private async *respond(request: ModelRequest): AsyncGenerator<ModelChunk> {
    const step = this.stepFor(request);
    const { signal } = request;
    if (signal.aborted) throw signal.reason;
    if (step.delayMs) await sleep(step.delayMs, signal);
    if (step.hang) {
      await new Promise<never>((_, reject) => {
        signal.addEventListener(
          'abort',
          () => {
            this.options.onAbortObserved?.(request);
            reject(signal.reason);
          },
          { once: true },
        );
      });
    }
    if (step.error) {
      throw new ArborError((step.error.code as ArborErrorCode) ?? 'MODEL_ERROR', step.error.message);
    }
    const text = step.text !== undefined ? fill(step.text, request.messages) : '';
    if (text) yield { type: 'text', text };
    for (const call of step.toolCalls ?? []) {
      const args = typeof call.arguments === 'string' ? fill(call.arguments, request.messages) : JSON.stringify(fillDeep(call.arguments, request.messages));
      const toolCall: ToolCall = { id: `call_${++this.callIds}`, name: call.name, arguments: args };
      yield { type: 'tool_call', call: toolCall };
    }
    yield step.usage ? { type: 'usage', ...step.usage } : { type: 'usage', inputTokens: estimateInput(request), outputTokens: Math.ceil(text.length / 4) + 1 };
  }

  private stepFor(request: ModelRequest): Step {
    const entry = this.script.agents.get(request.agentLabel) ?? this.script.agents.get('*');
    if (!entry) return { text: `No script entry for an agent labelled "${request.agentLabel}".` };
    let turn = entry.turns[request.turn - 1];
    if (!turn) {
      if (entry.afterLastTurn === 'repeat-last') turn = entry.turns[entry.turns.length - 1];
      else return { text: `Done: ${lastUserText(request.messages)}` };
    }
    const steps = Array.isArray(turn) ? turn : turn.steps;
    const loop = !Array.isArray(turn) && turn.loop;
    const index = request.step - 1;
    if (index < steps.length) return steps[index];
    if (loop) return steps[index % steps.length];
    return { text: steps[steps.length - 1].text ?? '' };
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function lastUserText(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role === 'user') return m.content;
  }
  return '';
}

function agentIdFor(label: string, messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'tool' || !m.content.startsWith('{')) continue;
    try {
      const v = JSON.parse(m.content) as { agent_id?: unknown; label?: unknown };
      if (typeof v.agent_id === 'string' && v.label === label) return v.agent_id;
    } catch {
      // not JSON: not a start_subagent result
    }
  }
  return `unknown-agent-${label}`;
}

function fill(template: string, messages: readonly ChatMessage[]): string {
  if (!template.includes('{{')) return template;
  return template.replace(/\{\{(lastMessage|agent:([^}]+))\}\}/g, (_m, key: string, label?: string) =>
    key === 'lastMessage' ? lastUserText(messages) : agentIdFor(label!.trim(), messages),
  );
}

function fillDeep(value: unknown, messages: readonly ChatMessage[]): unknown {
  if (typeof value === 'string') return fill(value, messages);
  if (Array.isArray(value)) return value.map((v) => fillDeep(v, messages));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillDeep(v, messages)]));
  }
  return value;
}

function estimateInput(request: ModelRequest): number {
  let chars = request.system.length;
  const messages = request.messages;
  // The latest messages dominate; a bounded look-back keeps long conversations cheap.
  for (let i = Math.max(0, messages.length - 64); i < messages.length; i++) chars += messages[i].content.length;
  return Math.ceil(chars / 4);
}
