// Arbor as a tool for any chat agent: Copilot's agent mode, or another extension's agent, hands
// a task to Arbor through VS Code's language-model tools (`vscode.lm.invokeTool`).
//
// Invariants:
// - A delegated run is autonomous: the chat agent's user confirmed it in VS Code's own prompt
//   (prepareInvocation), and nothing of the run ever asks the user through Arbor; approvals
//   are granted by remembered rules only.
// - The run is a root in the Agents view like any other: the user watches it and can Stop it.
// - The caller's cancellation stops the run's turn; the call then ends with a cancellation.
// - Input is parsed at this boundary, like every public entry point: no caller can choose the
//   interaction mode (the run request schema has no such key, and internal keys are refused).
import * as vscode from 'vscode';
import * as z from 'zod';
import { once, type Runtime } from '../../core';
import type { Agent } from '../../core/agents';
import { parsePublicRunRequestFrom, type PublicRunRequest } from '../../core/interaction';
import { describeOutcome, whenRunSettles, type RunResult } from '../runs/runResult';

export const RUN_AGENT_TOOL = 'arbor_run_agent';
export const LIST_AGENTS_TOOL = 'arbor_list_agents';
/** Arbor's own tools: never offered back to Arbor's agents through the VS Code tool bridge. */
export const ARBOR_LM_TOOLS: readonly string[] = Object.freeze([RUN_AGENT_TOOL, LIST_AGENTS_TOOL]);

const listInputSchema = once(() =>
  z.object({}).passthrough(),
);

/** The longest task shown whole in the confirmation; longer ones are cut with a note. */
const CONFIRMATION_PREVIEW = 4_000;

export interface ArborToolsDeps {
  runtime: Runtime;
  /** Starts an autonomous root agent (never asks the human through Arbor). */
  startDelegated(request: PublicRunRequest): Agent;
  log: vscode.LogOutputChannel;
}

/** Parses a tool's input with the public run request's rules; a bad input is an error the caller's model reads. */
export function parseRunAgentInput(input: unknown): PublicRunRequest {
  return parsePublicRunRequestFrom('command', input);
}

export function registerArborTools(deps: ArborToolsDeps): vscode.Disposable[] {
  return [vscode.lm.registerTool(RUN_AGENT_TOOL, new RunAgentTool(deps)), vscode.lm.registerTool(LIST_AGENTS_TOOL, new ListAgentsTool(deps.runtime))];
}

class RunAgentTool implements vscode.LanguageModelTool<unknown> {
  constructor(private readonly deps: ArborToolsDeps) {}

  prepareInvocation(options: vscode.LanguageModelToolInvocationPrepareOptions<unknown>): vscode.PreparedToolInvocation {
    const request = parseRunAgentInput(options.input);
    const task = request.prompt.length > CONFIRMATION_PREVIEW ? `${request.prompt.slice(0, CONFIRMATION_PREVIEW)}\n\n…(${request.prompt.length} characters in all)` : request.prompt;
    const message = new vscode.MarkdownString();
    message.appendMarkdown(`Arbor starts an agent${request.label ? ` labelled **${escapeMarkdown(request.label)}**` : ''} on this task. `);
    message.appendMarkdown('It works unattended (it never asks you; actions no approval rule covers are denied) and shows in the Arbor Agents view, where you can watch and stop it.\n\n');
    message.appendCodeblock(task, 'text');
    return {
      invocationMessage: `Arbor agent${request.label ? ` "${request.label}"` : ''} working…`,
      confirmationMessages: { title: 'Start an Arbor agent?', message },
    };
  }

  async invoke(options: vscode.LanguageModelToolInvocationOptions<unknown>, token: vscode.CancellationToken): Promise<vscode.LanguageModelToolResult> {
    const request = parseRunAgentInput(options.input);
    if (token.isCancellationRequested) throw new vscode.CancellationError();
    const agent = this.deps.startDelegated(request);
    this.deps.log.info(`A chat agent's tool call started "${agent.label}" (${agent.id})`);
    const stop = token.onCancellationRequested(() => {
      this.deps.log.info(`The chat agent cancelled its call: stopping "${agent.label}" (${agent.id})`);
      if (this.deps.runtime.agents.isLive(agent)) this.deps.runtime.stop(agent);
    });
    try {
      const result = await whenRunSettles(agent);
      if (token.isCancellationRequested) throw new vscode.CancellationError();
      return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(resultText(result))]);
    } finally {
      stop.dispose();
    }
  }
}

class ListAgentsTool implements vscode.LanguageModelTool<unknown> {
  constructor(private readonly runtime: Runtime) {}

  prepareInvocation(): vscode.PreparedToolInvocation {
    return { invocationMessage: 'Listing Arbor agents' };
  }

  invoke(options: vscode.LanguageModelToolInvocationOptions<unknown>): vscode.LanguageModelToolResult {
    listInputSchema().parse(options.input ?? {});
    const agents = this.runtime.agents.all().map((a) => ({
      id: a.id,
      label: a.label,
      kind: a.kind,
      status: a.stopping ? 'stopping' : a.status,
      mode: a.run.policy.mode,
      parent_id: this.runtime.agents.parentOf(a)?.id,
      last_result: a.lastTurnEnd ? { reason: a.lastTurnEnd.reason, text: clip(a.lastTurnEnd.finalText, 2_000) } : undefined,
    }));
    return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(JSON.stringify({ agents }))]);
  }
}

/** The tool result the chat agent's model reads. */
function resultText(result: RunResult): string {
  const lines = [`Arbor agent "${result.label}" (${result.agentId}) ${describeOutcome(result)}.`];
  if (result.blocked.length > 0) lines.push('', 'Blocked, waiting for a decision:', ...result.blocked.map((item) => `- ${item}`));
  if (result.text) lines.push('', 'Final result:', result.text);
  return lines.join('\n');
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
