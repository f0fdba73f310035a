// What a live agent is doing, in a few words, for the Agents view and the conversation view
// alike (both show the same line). Pure (no 'vscode' import), so it is unit-tested in Node.
import * as z from 'zod';
import { once } from '../once';
import type { AgentActivity } from '../agents/activity';
import type { ToolCall } from '../models/types';

export interface DoingInput {
  activity: AgentActivity;
  /** An open prompt for the human from this agent: a question, or an approval. */
  waitingFor?: 'answer' | 'approval';
  /**
   * The subagents it waits on: the one-shot agents its turn holds while it runs, or its running
   * continuable children while it is idle (their reports wake it).
   */
  waitingOn?: readonly string[];
  /** Its commands run in the sandbox (`arbor.sandbox.mode`, and this machine has one). */
  commandsSandboxed?: boolean;
}

/** Longest piece of a command, path or query shown before it is cut. */
const MAX_SUBJECT = 48;

/**
 * "thinking", "running: npm test" (or "running (sandboxed): npm test"), "reading src/a.ts", "editing src/a.ts", "waiting for your
 * approval", "waiting for Researcher"; undefined when it is doing nothing worth a word (idle,
 * waiting on no one). A turn running several tools names the first and counts the others.
 */
export function describeDoing({ activity, waitingFor, waitingOn = [], commandsSandboxed = false }: DoingInput): string | undefined {
  if (waitingFor) return waitingFor === 'approval' ? 'waiting for your approval' : 'waiting for you';
  if (activity.kind === 'idle') return waitingOn.length > 0 ? `waiting for ${names(waitingOn)}` : undefined;
  if (activity.kind === 'thinking') return 'thinking';
  const [first, ...rest] = activity.calls;
  if (first.name === 'delegate_task' && waitingOn.length > 0) return `waiting for ${names(waitingOn)}`;
  const text = describeCall(first, commandsSandboxed);
  return rest.length > 0 ? `${text} (+${rest.length} more)` : text;
}

/** The arguments a description uses; the model wrote them, so they are parsed, never trusted. */
const callSubject = once(() =>
  z.object({ command: z.string(), path: z.string(), query: z.string(), label: z.string(), prompt: z.string(), seconds: z.unknown() }).partial(),
);

function describeCall(call: ToolCall, sandboxed: boolean): string {
  let args: z.infer<ReturnType<typeof callSubject>> = {};
  try {
    const parsed = callSubject().safeParse(JSON.parse(call.arguments));
    if (parsed.success) args = parsed.data;
  } catch {
    // Unreadable arguments: the tool's name alone says enough.
  }
  switch (call.name) {
    case 'run_command':
      return args.command ? `running${sandboxed ? ' (sandboxed)' : ''}: ${cut(args.command)}` : `running a command${sandboxed ? ' (sandboxed)' : ''}`;
    case 'read_file':
      return args.path ? `reading ${cut(args.path)}` : 'reading a file';
    case 'edit_file':
    case 'create_file':
      return args.path ? `editing ${cut(args.path)}` : 'editing a file';
    case 'list_files':
      return args.path ? `listing ${cut(args.path)}` : 'listing files';
    case 'search_text':
      return args.query ? `searching for "${cut(args.query)}"` : 'searching';
    case 'get_diagnostics':
      return 'reading diagnostics';
    case 'delegate_task':
      return `waiting for ${cut(args.label ?? args.prompt ?? 'a subagent')}`;
    case 'start_subagent':
      return `starting ${cut(args.label ?? args.prompt ?? 'a subagent')}`;
    case 'send_message':
      return 'messaging a subagent';
    case 'list_agents':
      return 'listing its subagents';
    case 'interrupt_agent':
      return 'stopping a subagent';
    case 'ask_user_question':
      return 'asking you';
    case 'exit_plan_mode':
      return 'presenting its plan';
    case 'wait':
      return typeof args.seconds === 'number' ? `waiting ${args.seconds} s` : 'waiting';
    default:
      return `using ${cut(call.name)}`;
  }
}

function names(labels: readonly string[]): string {
  if (labels.length === 1) return cut(labels[0]);
  if (labels.length === 2) return `${cut(labels[0])} and ${cut(labels[1])}`;
  return `${cut(labels[0])} and ${labels.length - 1} more`;
}

function cut(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > MAX_SUBJECT ? `${flat.slice(0, MAX_SUBJECT - 1)}…` : flat;
}
