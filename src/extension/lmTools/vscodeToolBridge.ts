import * as vscode from 'vscode';
import { messageOf } from '../../core';
import * as z from 'zod';
import { lazySchema, type Runtime } from '../../core';
import { externalTool, type ExternalToolArgs } from '../../core/tools';
import { Disposable } from '../disposable';
import { ARBOR_LM_TOOLS } from './arborTools';

/** `arbor.tools.vscode`: which of VS Code's tools (`vscode.lm.tools`) agents are offered. */
export const TOOLS_SETTING = 'tools.vscode';

const selectionSchema = lazySchema(() => z.union([z.enum(['none', 'all']), z.array(z.string().trim().min(1))]));
export type ToolSelection = z.output<typeof selectionSchema>;

/** The names a model API accepts for a function; a tool named otherwise cannot be offered. */
const MODEL_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function readToolSelection(onProblem: (message: string) => void): ToolSelection {
  const raw = vscode.workspace.getConfiguration('arbor').get<unknown>(TOOLS_SETTING, 'none');
  const parsed = selectionSchema.safeParse(raw ?? 'none');
  if (parsed.success) return parsed.data;
  onProblem(`arbor.${TOOLS_SETTING} must be "none", "all" or a list of tool names and tags; offering no VS Code tools.`);
  return 'none';
}

function isSelected(tool: vscode.LanguageModelToolInformation, selection: ToolSelection): boolean {
  // Arbor's own tools start root runs: offered to its agents, they would escape the run's limits.
  if (selection === 'none' || ARBOR_LM_TOOLS.includes(tool.name)) return false;
  if (selection === 'all') return true;
  return selection.some((entry) => entry === tool.name || tool.tags.includes(entry));
}

/** A tool's identity for re-registration: the same name with another schema is another tool. */
function signature(tool: vscode.LanguageModelToolInformation): string {
  return JSON.stringify([tool.name, tool.description, tool.inputSchema ?? null]);
}

/** The text a tool result holds: its text parts in order (prompt-tsx parts as JSON). */
export function resultText(result: vscode.LanguageModelToolResult): string {
  const parts: string[] = [];
  for (const part of result.content) {
    if (part instanceof vscode.LanguageModelTextPart) parts.push(part.value);
    else if (part instanceof vscode.LanguageModelPromptTsxPart) parts.push(JSON.stringify(part.value));
  }
  return parts.join('\n');
}

/**
 * Offers tools other extensions contribute to VS Code (MCP servers configured in VS Code
 * included) to Arbor's agents, as the setting selects them. Each is registered in the runtime
 * as an external tool, so every call passes Arbor's approvals and run policy; it is invoked with
 * `vscode.lm.invokeTool`, cancelled when the turn is stopped. The offered set follows the
 * setting, extensions coming and going, and is refreshed whenever a run starts (VS Code has no
 * event for tools registered later, such as an MCP server that starts).
 */
export class VscodeToolBridge extends Disposable {
  private readonly offered = new Map<string, { signature: string; handle: { dispose(): void } }>();
  private lastProblem: string | undefined;

  constructor(
    private readonly runtime: Pick<Runtime, 'registerTool'>,
    private readonly log: vscode.LogOutputChannel,
    private readonly onProblem: (message: string) => void,
  ) {
    super();
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`arbor.${TOOLS_SETTING}`)) this.sync();
      }),
    );
    this._register(vscode.extensions.onDidChange(() => this.sync()));
    this.sync();
  }

  /** The names of the VS Code tools agents are offered now. */
  names(): string[] {
    return [...this.offered.keys()];
  }

  /** Brings the offered tools in line with the setting and `vscode.lm.tools`. */
  sync(): void {
    const selection = readToolSelection((problem) => {
      // Said once per bad value, not at every run start.
      if (problem !== this.lastProblem) this.onProblem(problem);
      this.lastProblem = problem;
    });
    const wanted = new Map<string, vscode.LanguageModelToolInformation>();
    for (const tool of vscode.lm.tools) if (isSelected(tool, selection)) wanted.set(tool.name, tool);

    let changed = false;
    for (const [name, entry] of this.offered) {
      const tool = wanted.get(name);
      if (tool && signature(tool) === entry.signature) continue;
      entry.handle.dispose();
      this.offered.delete(name);
      changed = true;
    }
    for (const tool of wanted.values()) {
      if (this.offered.has(tool.name)) continue;
      if (!MODEL_TOOL_NAME.test(tool.name)) {
        this.log.warn(`The VS Code tool "${tool.name}" is not offered to agents: models accept only letters, digits, _ and - (at most 64).`);
        continue;
      }
      const name = tool.name;
      try {
        const handle = this.runtime.registerTool(
          externalTool({
            name,
            description: tool.description || `The VS Code tool ${name}.`,
            inputSchema: tool.inputSchema,
            invoke: (input, signal) => this.invoke(name, input, signal),
          }),
        );
        this.offered.set(name, { signature: signature(tool), handle });
        changed = true;
      } catch (err) {
        this.log.warn(`The VS Code tool "${name}" is not offered to agents: ${messageOf(err)} (an Arbor tool has that name).`);
      }
    }
    if (changed) this.log.info(`VS Code tools offered to agents: ${this.names().join(', ') || 'none'}`);
  }

  override dispose(): void {
    for (const entry of this.offered.values()) entry.handle.dispose();
    this.offered.clear();
    super.dispose();
  }

  private async invoke(name: string, input: ExternalToolArgs, signal: AbortSignal): Promise<string> {
    const cancellation = new vscode.CancellationTokenSource();
    const onAbort = (): void => cancellation.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) cancellation.cancel();
    try {
      const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined }, cancellation.token);
      return resultText(result);
    } finally {
      signal.removeEventListener('abort', onAbort);
      cancellation.dispose();
    }
  }
}
