import type * as acp from '@agentclientprotocol/sdk';
import type { Agent } from '../agents/agent';
import { ArborError, isArborError } from '../errors';
import type { ApprovalAction, ApprovalService } from '../interaction/approvals';
import { unifiedDiff } from '../tools/workspaceTools';
import type { ChangeSets } from '../workspace/changeSets';
import { noWorkspace } from '../workspace/paths';
import type { WorkspacePath, WorkspacePort } from '../workspace/port';
import type { AcpClientHandlers } from './acpConnection';
import { TerminalSet } from './terminals';

/**
 * What an external agent may do through Arbor, served for one agent: its permission requests
 * go through the approval seam, its file reads and writes through the workspace port (confined
 * to the workspace, writes recorded in its change set so Review/Keep/Undo work as for Arbor's
 * own agents), its commands in terminals of Arbor's.
 *
 * Invariants:
 * - nothing is written or run that the approval seam did not allow: a write or a command is
 *   allowed either by its own approval or by the approval the agent asked for the same path or
 *   command in the same turn (so the person is not asked twice for one action);
 * - an edit is shown as it would change the file now: the diff in a permission request is made
 *   from the file's current text (read through the workspace), never from the old text the
 *   agent claims, and that approval covers only a write of exactly the text it showed; any
 *   other write to the path is asked about again with its own diff;
 * - delegated and unattended agents are answered by rules or denied, never left waiting (the
 *   seam's policy), and a cancelled turn answers pending permissions with `cancelled`;
 * - a path outside the workspace is refused (PATH_OUTSIDE_WORKSPACE), whatever was approved.
 */
export interface ExternalAgentServices {
  readonly approvals: Pick<ApprovalService, 'request'>;
  readonly changes: ChangeSets;
  /** The files the agent works on: its run's own folder, else the workspace. */
  workspace(agent: Agent): WorkspacePort | undefined;
}

/** Kinds of tool call that only read: allowed without asking, as Arbor's own reading tools are. */
const READ_ONLY_KINDS = new Set<acp.ToolKind>(['read', 'search', 'think']);

export class ExternalAgentClient {
  readonly terminals = new TerminalSet();
  /** Approvals given during the current turn, by `action:subject`. */
  private readonly granted = new Set<string>();
  /** For each file whose edit was allowed in this turn, the texts the person was shown (the writes that approval covers). */
  private readonly shownEdits = new Map<string, Set<string>>();

  constructor(
    private readonly agent: Agent,
    private readonly services: ExternalAgentServices,
    /** The current turn's signal (aborted by Stop); permissions asked after it are cancelled. */
    private readonly turnSignal: () => AbortSignal | undefined,
  ) {}

  /** A new turn: approvals of the previous one no longer cover anything. */
  newTurn(): void {
    this.granted.clear();
    this.shownEdits.clear();
  }

  dispose(): void {
    this.terminals.disposeAll();
  }

  handlers(onUpdate: (update: acp.SessionUpdate) => void): AcpClientHandlers {
    return {
      sessionUpdate: onUpdate,
      requestPermission: (p, s) => this.requestPermission(p, s),
      readTextFile: (p, s) => this.readTextFile(p, s),
      writeTextFile: (p, s) => this.writeTextFile(p, s),
      createTerminal: (p, s) => this.createTerminal(p, s),
      terminalOutput: async (p) => this.terminals.output(p.terminalId),
      waitForTerminalExit: (p, s) => this.terminals.waitForExit(p.terminalId, this.combined(s)),
      killTerminal: async (p) => {
        this.terminals.kill(p.terminalId);
        return {};
      },
      releaseTerminal: async (p) => {
        this.terminals.release(p.terminalId);
        return {};
      },
    };
  }

  async requestPermission(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse> {
    const call = params.toolCall;
    const turn = this.combined(signal);
    if (turn.aborted) return { outcome: { outcome: 'cancelled' } };
    const kind = call.kind ?? 'other';
    const pick = (allow: boolean): acp.RequestPermissionResponse => {
      const preferred = allow ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
      for (const k of preferred) {
        const option = params.options.find((o) => o.kind === k);
        if (option) return { outcome: { outcome: 'selected', optionId: option.optionId } };
      }
      return { outcome: { outcome: 'cancelled' } };
    };
    if (READ_ONLY_KINDS.has(kind)) {
      const detail = describeToolCall(call);
      this.agent.append({ type: 'approval', at: new Date().toISOString(), action: 'external-tool', detail: clip(detail), decision: 'allow-once', reason: 'Allowed without asking: it only reads, like Arbor\'s own reading tools.' });
      return pick(true);
    }
    const { action, subject } = await this.actionOf(call);
    const edits = action === 'edit-file' ? await this.editsOf(call, turn) : [];
    if (turn.aborted) return { outcome: { outcome: 'cancelled' } };
    const detail = describeToolCall(call, edits);
    if (action === 'write-outside-workspace') {
      this.agent.append({ type: 'approval', at: new Date().toISOString(), action, detail: clip(detail), decision: 'deny', reason: 'Denied without asking: the path is outside the workspace.' });
      return pick(false);
    }
    const outcome = await this.services.approvals.request({
      agent: this.agent,
      isSubagent: this.agent.kind !== 'root',
      policy: this.agent.run.policy,
      action,
      subject,
      detail,
      signal: turn,
      log: this.agent.log,
    });
    if (turn.aborted) return { outcome: { outcome: 'cancelled' } };
    const allowed = outcome.decision !== 'deny';
    if (allowed && action === 'edit-file') {
      for (const edit of edits) {
        const shown = this.shownEdits.get(edit.relative) ?? new Set<string>();
        this.shownEdits.set(edit.relative, shown.add(edit.newText));
      }
    } else if (allowed && subject !== undefined) this.granted.add(`${action}:${subject}`);
    return pick(allowed);
  }

  async readTextFile(params: acp.ReadTextFileRequest, signal: AbortSignal): Promise<acp.ReadTextFileResponse> {
    const workspace = this.workspace();
    const file = await workspace.resolve(params.path);
    const { text } = await workspace.readText(file, this.combined(signal));
    if (params.line == null && params.limit == null) return { content: text };
    const lines = text.split('\n');
    const from = Math.max(1, params.line ?? 1) - 1;
    const to = params.limit == null ? lines.length : from + params.limit;
    return { content: lines.slice(from, to).join('\n') };
  }

  async writeTextFile(params: acp.WriteTextFileRequest, signal: AbortSignal): Promise<acp.WriteTextFileResponse> {
    const workspace = this.workspace();
    const file = await workspace.resolve(params.path);
    const before = (await workspace.exists(file)) ? (await workspace.readText(file, this.combined(signal))).text : null;
    if (before === params.content) return {};
    if (!this.shownEdits.get(file.relative)?.has(params.content)) {
      const outcome = await this.services.approvals.request({
        agent: this.agent,
        isSubagent: this.agent.kind !== 'root',
        policy: this.agent.run.policy,
        action: 'edit-file',
        subject: file.relative,
        detail: unifiedDiff(file.relative, before, params.content),
        signal: this.combined(signal),
        log: this.agent.log,
      });
      if (outcome.decision === 'deny') throw new ArborError('TOOL_FAILED', `Not written: ${outcome.reason}`, { code: 'APPROVAL_DENIED', path: file.relative });
    }
    this.combined(signal).throwIfAborted();
    await this.write(workspace, file, before, params.content);
    return {};
  }

  async createTerminal(params: acp.CreateTerminalRequest, signal: AbortSignal): Promise<acp.CreateTerminalResponse> {
    const workspace = this.workspace();
    const folder = workspace.folders()[0];
    const cwd = params.cwd ? (await workspace.resolve(params.cwd)).absolute : folder;
    const line = [params.command, ...(params.args ?? [])].join(' ');
    if (!this.granted.has(`run-command:${line}`) && !(params.args?.length === 2 && this.granted.has(`run-command:${params.args[1]}`))) {
      const outcome = await this.services.approvals.request({
        agent: this.agent,
        isSubagent: this.agent.kind !== 'root',
        policy: this.agent.run.policy,
        action: 'run-command',
        subject: line,
        detail: `${line}${params.cwd ? `  (in ${params.cwd})` : ''}`,
        signal: this.combined(signal),
        log: this.agent.log,
      });
      if (outcome.decision === 'deny') throw new ArborError('TOOL_FAILED', `Not run: ${outcome.reason}`, { code: 'APPROVAL_DENIED', command: line });
    }
    const env = Object.fromEntries((params.env ?? []).map((v) => [v.name, v.value]));
    return { terminalId: this.terminals.create(params.command, params.args ?? [], cwd, env, params.outputByteLimit) };
  }

  /** Writes like Arbor's own edit tools: the original recorded before, the result after. */
  private async write(workspace: WorkspacePort, file: WorkspacePath, before: string | null, after: string): Promise<void> {
    if (this.agent.run.workspace) {
      await workspace.writeText(file, after, { expected: before });
      return;
    }
    await this.services.changes.writeRecorded(this.agent.id, workspace, file, before, after);
  }

  /**
   * The edits a tool call proposes (its diff contents), each as it would change the file now:
   * the old side is the file's current text in the workspace, whatever the agent says it was.
   * A diff whose path cannot be read in the workspace is left out (its write is asked about
   * when it comes).
   */
  private async editsOf(call: acp.ToolCallUpdate, signal: AbortSignal): Promise<ShownEdit[]> {
    const edits: ShownEdit[] = [];
    for (const c of call.content ?? []) {
      if (c.type !== 'diff') continue;
      try {
        const workspace = this.workspace();
        const file = await workspace.resolve(c.path);
        const current = (await workspace.exists(file)) ? (await workspace.readText(file, signal)).text : null;
        edits.push({ relative: file.relative, oldText: current, newText: c.newText });
      } catch (err) {
        if (signal.aborted) return edits;
        if (!isArborError(err)) throw err;
      }
    }
    return edits;
  }

  /** The approval action and the subject a rule matches, from what the tool call says it does. */
  private async actionOf(call: acp.ToolCallUpdate): Promise<{ action: ApprovalAction; subject?: string }> {
    const kind = call.kind ?? 'other';
    if (kind === 'execute') return { action: 'run-command', subject: commandOf(call.rawInput) ?? call.title ?? undefined };
    if (kind === 'fetch') return { action: 'network', subject: call.title ?? undefined };
    if (kind === 'edit' || kind === 'delete' || kind === 'move') {
      const path = call.locations?.[0]?.path ?? diffPathOf(call);
      if (!path) return { action: 'edit-file' };
      try {
        return { action: 'edit-file', subject: (await this.workspace().resolve(path)).relative };
      } catch (err) {
        if (isArborError(err, 'PATH_OUTSIDE_WORKSPACE')) return { action: 'write-outside-workspace', subject: path };
        throw err;
      }
    }
    return { action: 'external-tool', subject: call.title ?? undefined };
  }

  private workspace(): WorkspacePort {
    const workspace = this.services.workspace(this.agent);
    if (!workspace || workspace.folders().length === 0) throw noWorkspace();
    return workspace;
  }

  /** The request's signal, also aborted when the turn is stopped. */
  private combined(signal: AbortSignal): AbortSignal {
    const turn = this.turnSignal();
    return turn ? AbortSignal.any([signal, turn]) : signal;
  }
}

function commandOf(rawInput: unknown): string | undefined {
  if (!rawInput || typeof rawInput !== 'object') return undefined;
  const command = (rawInput as { command?: unknown }).command;
  if (typeof command === 'string') return command.trim();
  if (Array.isArray(command) && command.every((c) => typeof c === 'string')) return command.join(' ');
  return undefined;
}

function diffPathOf(call: acp.ToolCallUpdate): string | undefined {
  for (const c of call.content ?? []) if (c.type === 'diff') return c.path;
  return undefined;
}

/** An edit as the person is shown it: the file's workspace path, its text now (null: no such file) and the text proposed. */
export interface ShownEdit {
  relative: string;
  oldText: string | null;
  newText: string;
}

/**
 * The whole action, as the person approving it must see it. `edits` are the call's diffs made
 * from the files' current text: they replace the diffs the agent sent; without them the
 * agent's own diffs are shown.
 */
export function describeToolCall(call: acp.ToolCallUpdate, edits?: readonly ShownEdit[]): string {
  const lines: string[] = [call.title ?? '(untitled tool call)'];
  if (call.kind) lines.push(`Kind: ${call.kind}`);
  for (const loc of call.locations ?? []) lines.push(`Location: ${loc.path}${loc.line != null ? `:${loc.line}` : ''}`);
  if (call.rawInput !== undefined) lines.push(`Input: ${JSON.stringify(call.rawInput, null, 2)}`);
  for (const c of call.content ?? []) {
    if (c.type === 'diff' && !edits) lines.push(unifiedDiff(c.path, c.oldText ?? null, c.newText));
    else if (c.type === 'content' && c.content.type === 'text') lines.push(c.content.text);
  }
  for (const edit of edits ?? []) lines.push(unifiedDiff(edit.relative, edit.oldText, edit.newText));
  return lines.join('\n');
}

const LOG_DETAIL = 10_000;
function clip(text: string): string {
  return text.length <= LOG_DETAIL ? text : `${text.slice(0, LOG_DETAIL - 1)}…`;
}
