import * as z from 'zod';
import { isArborError, limitExceeded } from '../errors';
import { sliceRequestSchema } from '../budgets/sliceRequest';
import { once } from '../once';
import { listDescendants } from '../subagents/listing';
import type { OneShotOutcome } from '../subagents/oneShot';
import { defineTool } from './defineTool';
import { errorResult, jsonResult } from './catalog';
import type { ToolResult } from './types';
import type { ScopeNote } from '../scopes/writeScope';

const MAX_LABEL_LENGTH = 60;
const prompt = once(() => z.string().trim().min(1).max(100_000).describe('The complete task: the subagent sees nothing of your conversation.'));
/**
 * A subagent's label and task. Models often leave the label out or make it a sentence: a
 * missing label is taken from the task's first words and a long one is shortened, rather than
 * refusing a delegation over a display name.
 */
const taskArgs = once(() => z
  .object({
    label: z
      .string()
      .max(10_000)
      .optional()
      .describe(`A short name for the subagent, shown in the Agents view (at most ${MAX_LABEL_LENGTH} characters; defaults to the task's first words).`),
    prompt: prompt(),
    agent: definitionArg(),
    scope: scopeArg(),
    budget: budgetArg(),
  })
  // Without a label, a subagent of a definition is named after the definition (its canonical name, once found).
  // What else it asks of the branch (its scope, its budget) is passed on as the branch's request.
  .transform(({ label, prompt, agent, ...branch }) => ({ ...branch, label: label?.trim() ? shortLabel(label) : agent === undefined ? shortLabel(prompt) : undefined, prompt, agent })));

/** What the branch a delegation starts may change: workspace globs, narrowed into the caller's own scope. */
const scopeArg = once(() =>
  z
    .array(z.string().min(1).max(500))
    .max(50)
    .optional()
    .describe('Workspace globs it may change (["src/x/**"]); within your own scope.'),
);

/** The `budget` argument: the subagent's own slice of what the run has left (budgets/slices.ts). */
const budgetArg = once(() =>
  sliceRequestSchema()
    .optional()
    .describe("Its own budget (for it and its subagents), taken from what is left of yours or the run's; refused, saying what is left, when less is."),
);


/** The `agent` argument every delegation tool takes: an agent definition's name. */
export const definitionArg = once(() =>
  z.string().trim().min(1).max(64).optional().describe('The name of an agent definition to start: its instructions, tools and limits then apply to the subagent.'),
);

/** Whitespace collapsed and cut to the label length at a word boundary where there is one. */
function shortLabel(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= MAX_LABEL_LENGTH) return flat;
  const cut = flat.slice(0, MAX_LABEL_LENGTH - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > MAX_LABEL_LENGTH / 2 ? cut.slice(0, space) : cut}…`;
}
const agentId = once(() => z.string().min(1).max(300).describe('The agent_id returned when the subagent was started, or from list_agents.'));

export const delegateTaskTool = defineTool({
  name: 'delegate_task',
  description:
    'Run a one-shot subagent on a self-contained task and wait for its final answer, which becomes this tool result. ' +
    'The subagent cannot ask the user anything; it puts open questions in its result.',
  schema: taskArgs,
  readOnly: false,
  // No frame of its own waits for the subagent: a fan-out holds a thousand of these calls at once.
  run(args, ctx) {
    const definition = args.agent === undefined ? undefined : ctx.runtime.definitions.get(args.agent);
    const note = ctx.runtime.writes.guard.scopeNote(ctx.agent, definition, args.scope);
    return ctx.runtime.runOneShot(ctx.agent, args.label ?? definition!.name, args.prompt, ctx.signal, definition, args).then((outcome) => oneShotResult(outcome, note));
  },
});

function oneShotResult(outcome: OneShotOutcome, note: ScopeNote): ToolResult {
  return outcome.status === 'completed' ? { content: outcome.result + (note.text ?? '') } : { content: JSON.stringify({ ...outcome, ...note.fields }), isError: true };
}

export const startSubagentTool = defineTool({
  name: 'start_subagent',
  description:
    'Start a continuable subagent that keeps its conversation. Returns its agent_id at once; its report after each of its turns ' +
    'reaches you as a message. Use send_message to give it more work.',
  schema: taskArgs,
  readOnly: false,
  run(args, ctx) {
    const definition = args.agent === undefined ? undefined : ctx.runtime.definitions.get(args.agent);
    const note = ctx.runtime.writes.guard.scopeNote(ctx.agent, definition, args.scope);
    const child = ctx.runtime.startContinuable(ctx.agent, args.label ?? definition!.name, args.prompt, undefined, definition, args);
    return jsonResult({ agent_id: child.id, label: child.label, ...(definition ? { agent: definition.name } : {}), status: 'started', ...note.fields });
  },
});
const sendMessageArgs = once(() => z.object({ agent_id: agentId(), message: z.string().trim().min(1).max(100_000) }));
const listAgentsArgs = once(() => z.object({ scope: z.enum(['children', 'descendants']).default('children') }));
const interruptAgentArgs = once(() => z.object({ agent_id: agentId() }));

export const sendMessageTool = defineTool({
  name: 'send_message',
  description:
    'Queue a message for one of your own continuable subagents (you must be its direct parent). It starts a turn when the subagent ' +
    'is idle, and resumes a stopped subagent\'s queued work in order.',
  schema: sendMessageArgs,
  readOnly: false,
  async run(args, ctx) {
    try {
      const r = await ctx.runtime.subagents.deliver(ctx.agent, args.agent_id, args.message);
      return jsonResult({ agent_id: r.agentId, status: r.resumed ? 'resumed' : 'queued' });
    } catch (err) {
      if (isArborError(err)) return errorResult(err);
      throw err;
    }
  },
});

export const listAgentsTool = defineTool({
  name: 'list_agents',
  description:
    'List your live continuable subagents: your direct children, or all descendants in pre-order with parent_id and depth. ' +
    'The listing is a hint, not authority: agents may finish at any time.',
  schema: listAgentsArgs,
  readOnly: true,
  run(args, ctx) {
    const all = listDescendants(ctx.runtime.agents, ctx.agent, { omitOneShot: true, maxDepth: args.scope === 'children' ? 1 : undefined });
    return jsonResult({
      agents: all.map((a) => ({
        agent_id: a.id,
        label: a.label,
        parent_id: a.parentId,
        depth: a.depth,
        status: a.parked ? 'stopped-with-queue' : a.status,
        queued_messages: a.pending,
      })),
    });
  },
});

export const interruptAgentTool = defineTool({
  name: 'interrupt_agent',
  description:
    'Stop the current turn of one of your continuable descendants (a child or deeper). It keeps its conversation and queued ' +
    'messages, which wait until you send it a message. Its own subagents keep running. A one-shot subagent (delegate_task) cannot be ' +
    'interrupted on its own: it belongs to the agent waiting for its result.',
  schema: interruptAgentArgs,
  readOnly: false,
  run(args, ctx) {
    try {
      const result = ctx.runtime.subagents.interrupt(args.agent_id, { kind: 'ancestor', agent: ctx.agent });
      return jsonResult({ agent_id: args.agent_id, ...result });
    } catch (err) {
      if (isArborError(err)) return errorResult(err);
      throw err;
    }
  },
});

export const subagentTools = [delegateTaskTool, startSubagentTool, sendMessageTool, listAgentsTool, interruptAgentTool];

export { limitExceeded };
