import * as z from 'zod';
import { ArborError } from '../errors';
import type { ToolCall, ToolSpec } from '../models/types';
import type { ToolDefinition, ToolResult } from './types';

/**
 * The tools a runtime offers. Each tool's JSON Schema is generated once from its zod schema,
 * so what the model sees and what the runtime parses can never drift apart; it is generated
 * when the tool is first offered to a model, not when the runtime is made (the editor's
 * activation does not pay for it), and once per definition however many runtimes offer it.
 */
export class ToolCatalog<C> {
  private readonly tools = new Map<string, { def: ToolDefinition<C> }>();
  private changes = 0;

  add(def: ToolDefinition<C>): this {
    if (this.tools.has(def.name)) throw new Error(`Tool ${def.name} is defined twice.`);
    this.tools.set(def.name, { def });
    this.changes++;
    return this;
  }

  /** Withdraws a tool, only if `def` is the one registered under its name. */
  remove(def: ToolDefinition<C>): void {
    if (this.tools.get(def.name)?.def === def) {
      this.tools.delete(def.name);
      this.changes++;
    }
  }

  /** Counts every add and remove: a list worked out from the tools at another count is stale. */
  get version(): number {
    return this.changes;
  }

  get(name: string): ToolDefinition<C> | undefined {
    return this.tools.get(name)?.def;
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /** The specs of the tools `visible` accepts, in definition order. */
  specs(visible: (def: ToolDefinition<C>) => boolean): ToolSpec[] {
    const out: ToolSpec[] = [];
    for (const entry of this.tools.values()) if (visible(entry.def)) out.push(specOf(entry.def));
    return out;
  }

  /**
   * Parse the model's arguments with the tool's schema and run it. Bad JSON, arguments that do
   * not match, and unknown or hidden tools become error results that name the problem; the
   * turn goes on. An ArborError the tool throws is its error result; anything else it throws,
   * and anything thrown before it runs, rejects. No frame waits for the tool: a call that runs a
   * subagent lasts as long as the subagent, and a thousand of them must not each hold one.
   */
  execute(call: ToolCall, ctx: C, visible: (def: ToolDefinition<C>, ctx: C) => boolean): Promise<ToolResult> {
    let running: ToolResult | Promise<ToolResult>;
    try {
      const ready = this.prepare(call, ctx, visible);
      if (!('def' in ready)) return Promise.resolve(ready);
      try {
        running = ready.def.run(ready.args, ctx);
      } catch (err) {
        return Promise.resolve(runFailure(err));
      }
    } catch (err) {
      return Promise.reject(err);
    }
    return isPromiseLike(running) ? Promise.resolve(running).catch(runFailure) : Promise.resolve(running);
  }

  /** The tool and its parsed arguments, or the error result that says why it cannot run. */
  private prepare(call: ToolCall, ctx: C, visible: (def: ToolDefinition<C>, ctx: C) => boolean): ToolResult | { def: ToolDefinition<C>; args: unknown } {
    const def = this.tools.get(call.name)?.def;
    if (!def || !visible(def, ctx)) {
      const offered = this.specs((d) => visible(d, ctx)).map((s) => s.name);
      return errorResult(
        new ArborError('TOOL_UNKNOWN', `There is no tool named "${call.name}" available to you. Available tools: ${offered.join(', ') || 'none'}.`),
      );
    }
    let raw: unknown;
    try {
      raw = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
    } catch (err) {
      return errorResult(
        new ArborError('TOOL_ARGUMENTS_INVALID', `The arguments for ${call.name} are not valid JSON (${(err as Error).message}). Send a JSON object.`),
      );
    }
    const parsed = def.schema().safeParse(raw);
    if (!parsed.success) {
      return errorResult(
        new ArborError('TOOL_ARGUMENTS_INVALID', `The arguments for ${call.name} do not match its schema:\n${z.prettifyError(parsed.error)}`),
      );
    }
    return { def, args: parsed.data };
  }
}

/** What a tool that threw returns: an ArborError is its error result (a limit also ends the turn); anything else is thrown on. */
function runFailure(err: unknown): ToolResult {
  if (err instanceof ArborError) {
    return err.code === 'LIMIT_EXCEEDED' ? { ...errorResult(err), endsTurn: err.message } : errorResult(err);
  }
  throw err;
}

function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

function generatedParameters(schema: z.ZodType): Record<string, unknown> {
  const parameters = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
  delete parameters.$schema;
  return parameters;
}

export function errorResult(err: ArborError): ToolResult {
  return { content: JSON.stringify(err.toJSON()), isError: true };
}

/**
 * What a tool returns when approval is denied: a structured error that names the action, the
 * subject, why it was denied and, when there is one, the rule that would allow it.
 */
export function deniedResult(action: string, subject: string | undefined, outcome: { reason: string; suggestedRule?: string }): ToolResult {
  return {
    content: JSON.stringify({
      status: 'denied',
      code: 'APPROVAL_DENIED',
      action,
      ...(subject !== undefined ? { subject } : {}),
      reason: outcome.reason,
      ...(outcome.suggestedRule ? { rule_that_would_allow: outcome.suggestedRule } : {}),
    }),
    isError: true,
  };
}

export function jsonResult(value: unknown): ToolResult {
  return { content: JSON.stringify(value) };
}

/**
 * A tool's spec is made of its definition alone, so it is made once per definition, not per
 * runtime: the built-in tools are the same objects in every runtime of the process.
 */
const made = new WeakMap<object, ToolSpec>();

function specOf<C>(def: ToolDefinition<C>): ToolSpec {
  let spec = made.get(def);
  if (!spec) made.set(def, (spec = { name: def.name, description: def.description, parameters: def.parameters ?? generatedParameters(def.schema()) }));
  return spec;
}
