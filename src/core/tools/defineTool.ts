import type { z } from 'zod';
import type { RuntimeToolContext } from './context';
import type { ToolDefinition, ToolResult } from './types';

/** A tool as written: like ToolDefinition, with `readOnly` defaulting to false. */
export interface ToolSpecInput<S extends z.ZodType, C> {
  name: string;
  /** What the model reads to decide when to call the tool and what it returns. */
  description: string;
  /** Parsed before `run`; the model sees its JSON Schema. Built on first use (`once`). */
  schema: () => S;
  /** Read-only tools stay available in plan mode. */
  readOnly?: boolean;
  run(args: z.output<S>, ctx: C): Promise<ToolResult> | ToolResult;
}

/**
 * Defines a tool once: `defineTool({ name, description, schema, readOnly?, run(args, ctx) })`.
 * `args` is typed from the schema and `ctx` is the runtime's tool context unless another is
 * named, so the result goes into the runtime's tool list as it is, without a cast.
 */
export function defineTool<S extends z.ZodType, C = RuntimeToolContext>(spec: ToolSpecInput<S, C>): ToolDefinition<C, S> {
  return { ...spec, readOnly: spec.readOnly ?? false };
}
