import type { z } from 'zod';

/** What a tool handler returns; it becomes the tool message the model reads next. */
export interface ToolResult {
  content: string;
  isError?: boolean;
  /** Set when the call hit a run limit: the turn ends with reason `budget`, naming this. */
  endsTurn?: string;
}

/**
 * A tool is defined once: a zod schema (the model sees its JSON Schema, the runtime parses
 * the model's arguments with it), a description for the model, and a handler. `C` is the
 * context the runtime passes (the caller agent, the turn's signal, runtime services). The schema
 * is asked for (`schema()`) when the tool is first offered or called, and built then (`once`).
 */
export interface ToolDefinition<C, S extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  schema: () => S;
  /** Read-only tools stay available in plan mode. */
  readOnly: boolean;
  /**
   * The JSON Schema the model sees, for a tool that brings its own (one contributed by another
   * extension). Without it the schema is generated from `schema`, which always parses the
   * arguments.
   */
  parameters?: Record<string, unknown>;
  run(args: z.output<S>, ctx: C): Promise<ToolResult> | ToolResult;
}
