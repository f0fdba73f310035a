import type * as acp from '@agentclientprotocol/sdk';
import type { Agent, TurnEngine } from '../agents/agent';
import { isoNow } from '../clock';
import { ArborError, isArborError } from '../errors';
import type { ApprovalAction, ApprovalService } from '../interaction/approvals';
import { commandSubject } from '../interaction/commandLine';
import { processesPart, workspaceToolRunsPart } from '../parts';
import type { CommandSandbox, SandboxPlan } from '../sandbox';
import type { ChangeSets } from '../workspace/changeSets';
import type { WritesHost } from '../scopes/writeScope';
import { noWorkspace } from '../workspace/paths';
import type { WorkspacePath, WorkspacePort } from '../workspace/port';
import type { AcpClientHandlers } from './acpConnection';
import { allowOnce, cancelled, describeFileOfPermission, filesOfPermission, refuse, type PermissionFile, type ShownEdit } from './permissions';
import { TerminalSet } from './terminals';

export type { ShownEdit } from './permissions';

/**
 * What an external agent may do through Arbor, served for one agent: its permission requests
 * go through the approval seam, its file reads and writes through the workspace port (confined
 * to the workspace, writes recorded in its change set so Review/Keep/Undo work as for Arbor's
 * own agents), its commands in terminals of Arbor's.
 *
 * Invariants:
 * - nothing is written or run that the approval seam did not allow: a write or a command is
 *   allowed either by its own approval or by the approval the agent asked for the same file or
 *   command in the same turn (so the person is not asked twice for one action);
 * - every file an edit permission names is its own subject: confined, matched against rules and
 *   shown on its own; the permission is allowed only if each file is, and then covers only
 *   writes of exactly the texts shown over exactly the texts they were shown against (a diff is
 *   made from the file's current text, never from the old text the agent claims). Any other
 *   write (another file, another text, a file changed since) is asked about again;
 * - a command is matched as the exact program, arguments and environment that will run (see
 *   interaction/commandLine); the agent cannot set PATH;
 * - a permission is answered once-only (see permissions.ts), never with an "always" option;
 * - delegated and unattended agents are answered by rules or denied, never left waiting (the
 *   seam's policy), and a cancelled turn answers pending permissions with `cancelled`;
 * - a path outside the workspace is refused (PATH_OUTSIDE_WORKSPACE), whatever was approved;
 * - a terminal's command runs in the same sandbox as run_command (writes only in the agent's run
 *   folder); the person asked sees how it will run, and `required` without a sandbox runs nothing.
 */
/** How a subagent of an external agent joins the tree: a continuable child of that agent's node. */
export type StartChild = (parent: Agent, label: string, prompt: string, engine: TurnEngine<Agent>) => Agent;

export interface ExternalAgentServices {
  readonly approvals: Pick<ApprovalService, 'request'>;
  readonly changes: ChangeSets;
  /** Write scopes, another agent's files and the per-file queue, as for Arbor's own edit tools; unchecked without it. */
  readonly writes?: WritesHost;
  /** The files the agent works on: its run's own folder, else the workspace. */
  workspace(agent: Agent): WorkspacePort | undefined;
  /** Puts a subagent the agent announced in the tree, under it (absent: subagents are not offered). */
  readonly startChild?: StartChild;
  /** What bounds its terminals' commands, as it bounds Arbor's own (run_command); unbounded without it. */
  readonly sandbox?: CommandSandbox;
}

/** Kinds of tool call that only read: allowed without asking, as Arbor's own reading tools are. */
const READ_ONLY_KINDS = new Set<acp.ToolKind>(['read', 'search', 'think']);

export class ExternalAgentClient {
  readonly terminals = new TerminalSet();
  /** Approvals given during the current turn, by `action:subject`. */
  private readonly granted = new Set<string>();
  /** For each file whose edit was allowed in this turn, the edits the person was shown (the writes that approval covers). */
  private readonly shownEdits = new Map<string, ShownEdit[]>();

  constructor(
    readonly agent: Agent,
    private readonly services: ExternalAgentServices,
    /** The current turn's signal (aborted by Stop); permissions asked after it are cancelled. */
    private readonly turnSignal: () => AbortSignal | undefined,
    /** The clock the decisions it records are dated by. */
    private readonly now: () => number = Date.now,
  ) {}

  /** A new turn: approvals of the previous one no longer cover anything. */
  newTurn(): void {
    this.granted.clear();
    this.shownEdits.clear();
  }

  dispose(): void {
    this.terminals.disposeAll();
  }

  handlers(onUpdate: (update: acp.SessionUpdate, sessionId: string) => void): AcpClientHandlers {
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
    if (turn.aborted) return cancelled();
    const kind = call.kind ?? 'other';
    const isEdit = kind === 'edit' || kind === 'delete' || kind === 'move';
    const allow = allowOnce(params.options);
    if (!allow) {
      const offered = params.options.map((o) => o.kind).join(', ') || 'none';
      this.record(isEdit ? 'edit-file' : actionOf(call).action, describeToolCall(call), 'Refused without asking: the agent offered no allow-once option (it offered: ' + offered + '), and Arbor answers a permission only once, never "always".');
      return refuse(params.options);
    }
    if (READ_ONLY_KINDS.has(kind)) {
      this.record('external-tool', describeToolCall(call), 'Allowed without asking: it only reads, like Arbor\'s own reading tools.', 'allow-once');
      return allow;
    }
    if (isEdit) return this.editPermission(call, turn, params.options);
    const { action, subject } = actionOf(call);
    const outcome = await this.ask(action, subject, describeToolCall(call), turn);
    if (turn.aborted) return cancelled();
    if (outcome.decision === 'deny') return refuse(params.options);
    if (subject !== undefined) this.granted.add(`${action}:${subject}`);
    return allow;
  }

  /**
   * An edit permission: each file it names asked about (or matched against rules) on its own;
   * allowed only when every file is, and then it covers exactly the edits shown.
   */
  private async editPermission(call: acp.ToolCallUpdate, turn: AbortSignal, options: readonly acp.PermissionOption[]): Promise<acp.RequestPermissionResponse> {
    const named = await filesOfPermission(call, this.workspace(), turn);
    if (turn.aborted) return cancelled();
    if (!named.ok) {
      this.record(named.outside ? 'write-outside-workspace' : 'edit-file', describeToolCall(call), named.outside ? 'Denied without asking: the path is outside the workspace.' : `Denied without asking: ${named.path} cannot be read in the workspace, so its edit cannot be shown (${named.message}).`);
      return refuse(options);
    }
    const files: readonly PermissionFile[] = named.files;
    if (files.length === 0) {
      const outcome = await this.ask('edit-file', undefined, describeToolCall(call), turn);
      if (turn.aborted) return cancelled();
      return outcome.decision === 'deny' ? refuse(options) : (allowOnce(options) ?? refuse(options));
    }
    for (const file of files) {
      const outcome = await this.ask('edit-file', file.relative, describeFileOfPermission(call, file, files), turn);
      if (turn.aborted) return cancelled();
      if (outcome.decision !== 'deny') continue;
      if (files.length > 1) {
        const edits = files.flatMap((f) => f.edits);
        this.record('edit-file', describeToolCall(call, edits), `Denied: the request names ${files.length} files and ${file.relative} was not allowed, so none of them is (${outcome.reason})`);
      }
      return refuse(options);
    }
    for (const edit of files.flatMap((f) => f.edits)) {
      const shown = this.shownEdits.get(edit.relative) ?? [];
      this.shownEdits.set(edit.relative, [...shown, edit]);
    }
    return allowOnce(options) ?? refuse(options);
  }

  async readTextFile(params: acp.ReadTextFileRequest, signal: AbortSignal): Promise<acp.ReadTextFileResponse> {
    const workspace = this.workspace();
    const file = await workspace.resolve(params.path);
    const { text } = await workspace.readText(file, this.combined(signal)).catch((err: unknown) => {
      throw forTheAgent(err);
    });
    if (params.line == null && params.limit == null) return { content: text };
    const lines = text.split('\n');
    const from = Math.max(1, params.line ?? 1) - 1;
    const to = params.limit == null ? lines.length : from + params.limit;
    return { content: lines.slice(from, to).join('\n') };
  }

  async writeTextFile(params: acp.WriteTextFileRequest, signal: AbortSignal): Promise<acp.WriteTextFileResponse> {
    const workspace = this.workspace();
    const file = await workspace.resolve(params.path);
    const guard = this.services.writes?.guard;
    guard?.checkScope(this.agent, file);
    const before = (await workspace.exists(file)) ? (await workspace.readText(file, this.combined(signal))).text : null;
    if (before === params.content) return {};
    const attempt = { agent: this.agent, file, before, after: params.content, signal: this.combined(signal) };
    const consented = (await guard?.consentBefore(attempt)) ?? new Set();
    const covered = this.shownEdits.get(file.relative)?.some((e) => e.oldText === before && e.newText === params.content);
    if (!covered) {
      const outcome = await this.ask('edit-file', file.relative, workspaceToolRunsPart().unifiedDiff(file.relative, before, params.content), this.combined(signal));
      if (outcome.decision === 'deny') throw new ArborError('TOOL_FAILED', `Not written: ${outcome.reason}`, { code: 'APPROVAL_DENIED', path: file.relative });
    }
    this.combined(signal).throwIfAborted();
    const write = (): Promise<void> => this.write(workspace, file, before, params.content);
    await (guard ? guard.apply(attempt, consented, write) : write());
    return {};
  }

  async createTerminal(params: acp.CreateTerminalRequest, signal: AbortSignal): Promise<acp.CreateTerminalResponse> {
    const workspace = this.workspace();
    const folder = workspace.folders()[0];
    const cwd = params.cwd ? (await workspace.resolve(params.cwd)).absolute : folder;
    const command = { program: params.command, args: params.args ?? [], env: params.env ?? [] };
    const subject = commandSubject(command);
    if (!subject.ok) {
      const reason = `Refused without asking: ${subject.reason}`;
      this.record('run-command', JSON.stringify(command, null, 2), reason);
      throw new ArborError('TOOL_FAILED', `Not run: ${reason}`, { code: 'APPROVAL_DENIED', command: params.command });
    }
    const sandbox = this.services.sandbox;
    const writable = this.services.writes?.guard.writableFolders(this.agent, folder) ?? [folder];
    const plan: SandboxPlan = sandbox ? await sandbox.plan(writable) : { kind: 'unsandboxed', reason: 'no sandbox is configured' };
    if (!this.granted.has(`run-command:${subject.subject}`)) {
      const detail = `${subject.detail}${params.cwd ? `\nIn: ${params.cwd}` : ''}${sandbox ? `\n${sandbox.describe(plan)}` : ''}`;
      const outcome = await this.ask('run-command', subject.subject, detail, this.combined(signal), plan.kind === 'sandboxed' && plan.settings.autoAllow);
      if (outcome.decision === 'deny') throw new ArborError('TOOL_FAILED', `Not run: ${outcome.reason}`, { code: 'APPROVAL_DENIED', command: subject.subject });
    }
    const env = Object.fromEntries(command.env.map((v) => [v.name, v.value]));
    const tagged = processesPart().newProcessTag();
    const launch = sandbox ? await sandbox.launch(plan, command.program, command.args, cwd, { ...env, ...tagged.env }) : undefined;
    return { terminalId: this.terminals.create(command.program, command.args, cwd, env, params.outputByteLimit, launch && { ...launch, tag: tagged.tag }) };
  }

  /** The approval seam's decision on one action of this agent's. */
  private ask(action: ApprovalAction, subject: string | undefined, detail: string, signal: AbortSignal, sandboxAutoAllow = false) {
    return this.services.approvals.request({ agent: this.agent, isSubagent: this.agent.kind !== 'root', policy: this.agent.run.policy, action, subject, detail, signal, log: this.agent.log, sandboxAutoAllow });
  }

  /** A decision Arbor took without the approval seam, recorded as the seam records its own. */
  private record(action: ApprovalAction, detail: string, reason: string, decision: 'deny' | 'allow-once' = 'deny'): void {
    this.agent.append({ type: 'approval', at: isoNow(this.now), action, detail: clip(detail), decision, reason });
  }

  /** Writes like Arbor's own edit tools: the original recorded before, the result after. */
  private async write(workspace: WorkspacePort, file: WorkspacePath, before: string | null, after: string): Promise<void> {
    if (this.agent.run.workspace) {
      await workspace.writeText(file, after, { expected: before });
      return;
    }
    await this.services.changes.writeRecorded(this.agent.id, workspace, file, before, after);
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

/**
 * A workspace error as an external agent is told it: the workspace's messages point Arbor's own
 * agents at Arbor's tools (list_files), which an external agent does not have, so only what
 * happened is kept.
 */
function forTheAgent(err: unknown): unknown {
  if (!isArborError(err) || (err.code !== 'FILE_NOT_FOUND' && err.code !== 'PATH_INVALID')) return err;
  const [what] = err.message.split(/(?<=\.) /);
  return new ArborError(err.code, what, err.details);
}

/** The approval action and the subject a rule matches, from what a tool call that is not an edit says it does. */
function actionOf(call: acp.ToolCallUpdate): { action: ApprovalAction; subject?: string } {
  const kind = call.kind ?? 'other';
  if (kind === 'execute') return { action: 'run-command', subject: commandOf(call.rawInput) ?? call.title ?? undefined };
  if (kind === 'fetch') return { action: 'network', subject: call.title ?? undefined };
  return { action: 'external-tool', subject: call.title ?? undefined };
}

/**
 * The command a tool call says it runs: a string is a shell command line; an array (or a
 * command with `args`) is a program and its arguments, written as the line that runs exactly it.
 */
function commandOf(rawInput: unknown): string | undefined {
  if (!rawInput || typeof rawInput !== 'object') return undefined;
  const { command, args } = rawInput as { command?: unknown; args?: unknown };
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((c) => typeof c === 'string');
  const argv = typeof command === 'string' && strings(args) ? [command, ...args] : strings(command) ? command : undefined;
  if (argv && argv.length > 0) {
    const line = commandSubject({ program: argv[0], args: argv.slice(1), env: [] });
    return line.ok ? line.subject : undefined;
  }
  return typeof command === 'string' ? command.trim() : undefined;
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
    if (c.type === 'diff' && !edits) lines.push(workspaceToolRunsPart().unifiedDiff(c.path, c.oldText ?? null, c.newText));
    else if (c.type === 'content' && c.content.type === 'text') lines.push(c.content.text);
  }
  for (const edit of edits ?? []) lines.push(workspaceToolRunsPart().unifiedDiff(edit.relative, edit.oldText, edit.newText));
  return lines.join('\n');
}

const LOG_DETAIL = 10_000;
function clip(text: string): string {
  return text.length <= LOG_DETAIL ? text : `${text.slice(0, LOG_DETAIL - 1)}…`;
}
