/**
 * A tool another extension contributes (through the editor's tool registry, MCP servers
 * included), offered to Arbor's agents under its own name and JSON Schema.
 *
 * Invariants:
 * - Every call goes through the approval seam (action `vscode-tool`, subject = the tool's name)
 *   before the tool runs: a rule ("tool: name") allows it anywhere, an interactive root is
 *   asked with the whole input on screen, unattended runs and subagents are denied otherwise.
 * - The arguments must be a JSON object; checking them against the tool's schema is the
 *   contributing tool's job.
 * - The turn's signal reaches the invocation, and an abort ends the call at once even if the
 *   tool never answers.
 * - It is never read-only: Arbor cannot know what another extension's tool changes, so plan
 *   mode does not offer it.
 */
import * as z from 'zod';
import { ArborError, messageOf } from '../errors';
import { lazySchema } from '../lazySchema';
import { untilAborted } from '../untilAborted';
import { deniedResult, errorResult } from './catalog';
import type { RuntimeToolContext } from './context';
import type { ToolDefinition, ToolResult } from './types';

export const externalToolArgsSchema = lazySchema(() => z.record(z.string(), z.unknown()));
export type ExternalToolArgs = z.output<typeof externalToolArgsSchema>;

export interface ExternalToolSpec {
  name: string;
  description: string;
  /** The tool's JSON Schema for its input (`undefined`: it takes an empty object). */
  inputSchema: unknown;
  /** Runs the tool; the signal is aborted when the turn is stopped. Resolves with its text result. */
  invoke(input: ExternalToolArgs, signal: AbortSignal): Promise<string>;
}

/** The longest result kept for the model; the rest is cut with a note. */
const MAX_RESULT = 64 * 1024;

/** The tool as the runtime registers it (`Runtime.registerTool`). */
export function externalTool(spec: ExternalToolSpec): ToolDefinition<RuntimeToolContext> {
  const tool: ToolDefinition<RuntimeToolContext, typeof externalToolArgsSchema> = {
    name: spec.name,
    description: spec.description,
    schema: externalToolArgsSchema,
    parameters: objectSchema(spec.inputSchema),
    readOnly: false,
    async run(args, ctx): Promise<ToolResult> {
      const approval = await ctx.approvals.request({
        agent: ctx.agent,
        isSubagent: ctx.agent.kind !== 'root',
        policy: ctx.policy,
        action: 'vscode-tool',
        detail: `${spec.name} ${JSON.stringify(args, null, 2)}`,
        subject: spec.name,
        signal: ctx.signal,
        log: ctx.agent.log,
        toolCallId: ctx.toolCallId,
      });
      if (approval.decision === 'deny') return deniedResult('vscode-tool', spec.name, approval);
      let text: string;
      try {
        text = await untilAborted(spec.invoke(args, ctx.signal), ctx.signal);
      } catch (err) {
        if (ctx.signal.aborted) throw err;
        return errorResult(new ArborError('TOOL_FAILED', `The tool ${spec.name} failed: ${messageOf(err)}`));
      }
      if (text.length > MAX_RESULT) text = `${text.slice(0, MAX_RESULT)}\n[cut: the result had ${text.length} characters]`;
      return { content: text === '' ? '(the tool returned no text)' : text };
    },
  };
  return tool;
}

/** The model needs an object schema; anything else becomes "an object with any properties". */
function objectSchema(inputSchema: unknown): Record<string, unknown> {
  const parsed = z.record(z.string(), z.unknown()).safeParse(inputSchema);
  if (!parsed.success || (parsed.data.type !== undefined && parsed.data.type !== 'object')) return { type: 'object', properties: {} };
  const schema: Record<string, unknown> = { ...parsed.data, type: 'object' };
  delete schema.$schema;
  return schema;
}

