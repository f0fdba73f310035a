/**
 * Agents run in a git worktree of their own: Start Agent in a Worktree, Review (the worktree's diff
 * against its base), Keep (applies it to the user's files) and Discard (removes the worktree and
 * its branch).
 *
 * Invariants: the user's files change only through Keep, and Keep applies all or nothing (the
 * core checks the patch first); Keep and Discard wait until no agent of the run is running; a
 * worktree whose changes were kept or discarded is removed, and its agent ended, since it has
 * nowhere left to work.
 *
 * Only some users start one, so this loads the first time a worktree command runs
 * (src/extension/parts.ts).
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import * as vscode from 'vscode';
import * as z from 'zod';
import { ArborError, once, type Runtime } from '../../core';
import { labelFromPrompt, type Agent } from '../../core/agents';
import type { PublicRunRequest } from '../../core/interaction';
import type { ModelProvider } from '../../core/models';
import { NodeWorkspace, baseContent, createWorktree, discardWorktree, keepWorktree, worktreeChanges, type GitWorktree, type WorktreeChange } from '../../core/workspace';
import type { AgentRuns } from '../agents/agentRuns';
import { reportError } from '../errorReporting';
import { WORKTREE_BASE_SCHEME } from '../parts';

export interface WorktreeEntry {
  readonly agent: Agent;
  readonly worktree: GitWorktree;
}

const baseQuerySchema = once(() => z.object({ agent: z.string().min(1).max(1000), path: z.string().min(1).max(4096) }));

export class WorktreeRuns implements vscode.TextDocumentContentProvider {
  private readonly entries = new Map<string, WorktreeEntry>();
  /** Asks before Discard (tests replace it). */
  confirmDiscard: (entry: WorktreeEntry) => Promise<boolean> = async ({ agent, worktree }) =>
    (await vscode.window.showWarningMessage(
      `Discard everything "${agent.label}" did in its worktree? The worktree and its branch ${worktree.branch} are deleted; your files stay as they are.`,
      { modal: true },
      'Discard',
    )) === 'Discard';

  constructor(
    private readonly runtime: Runtime,
    private readonly runs: AgentRuns,
    /** Where worktrees live: the extension's storage, never inside the user's repository. */
    private readonly storage: string,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  /** Checks out HEAD on a new branch in a worktree and starts a root agent working there. */
  async start(request: PublicRunRequest, model?: ModelProvider): Promise<Agent> {
    const folder = this.runtime.workspaceFolder;
    if (!folder) throw new ArborError('WORKSPACE_NONE', 'Open a folder in a git repository first: a worktree run needs one.');
    const label = request.label?.trim() || labelFromPrompt(request.prompt);
    const worktree = await createWorktree({ workspaceFolder: folder, storage: this.storage, label, id: randomUUID().slice(0, 8) });
    const agent = this.runs.start({ ...request, label }, 'interactive', model, undefined, { folder: worktree.folder, files: new NodeWorkspace({ folders: [worktree.folder] }) });
    this.entries.set(agent.id, { agent, worktree });
    this.log.info(`"${agent.label}" (${agent.id}) works in the worktree ${worktree.root} on the branch ${worktree.branch}`);
    return agent;
  }

  /** A root put back after a reload, with the worktree it worked in: Review, Keep and Discard list it again. */
  adopt(agent: Agent, worktree: GitWorktree): void {
    this.entries.set(agent.id, { agent, worktree });
  }

  get(agentId: string): WorktreeEntry | undefined {
    return this.entries.get(agentId);
  }

  list(): WorktreeEntry[] {
    return [...this.entries.values()];
  }

  changes(agentId: string): Promise<WorktreeChange[]> {
    return worktreeChanges(this.entry(agentId).worktree);
  }

  /** Opens the worktree's changes against its base in one multi-file diff. */
  async review(agentId: string): Promise<WorktreeChange[]> {
    const { agent, worktree } = this.entry(agentId);
    const changes = await worktreeChanges(worktree);
    if (changes.length === 0) {
      void vscode.window.showInformationMessage(`"${agent.label}" has not changed any file in its worktree.`);
      return changes;
    }
    const resources = changes.map((change) => {
      const file = vscode.Uri.file(path.join(worktree.folder, change.path));
      const base = file.with({ scheme: WORKTREE_BASE_SCHEME, query: new URLSearchParams({ agent: agentId, path: change.path }).toString() });
      return [file, base, change.kind === 'deleted' ? base.with({ fragment: 'deleted' }) : file];
    });
    await vscode.commands.executeCommand('vscode.changes', `${agent.label}: changes in its worktree (${worktree.branch})`, resources);
    return changes;
  }

  /** Applies the worktree's changes to the user's files (all or nothing), then removes the worktree. */
  async keep(agentId: string): Promise<WorktreeChange[]> {
    const entry = this.settled(agentId);
    const applied = await keepWorktree(entry.worktree);
    this.log.info(`Kept ${applied.length} change(s) of "${entry.agent.label}" from its worktree`);
    await this.close(entry);
    return applied;
  }

  /** Removes the worktree and its branch after a confirmation; false when the user declined. */
  async discard(agentId: string): Promise<boolean> {
    const entry = this.settled(agentId);
    if (!(await this.confirmDiscard(entry))) return false;
    await this.close(entry);
    this.log.info(`Discarded the worktree of "${entry.agent.label}"`);
    return true;
  }

  /** The base side of a Review: the file at the worktree's base commit (empty when it is new there or deleted here). */
  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const query = baseQuerySchema().safeParse(Object.fromEntries(new URLSearchParams(uri.query)));
    if (!query.success) return 'This link does not name a worktree change (it needs an agent and a path).';
    if (uri.fragment === 'deleted') return '';
    const entry = this.entries.get(query.data.agent);
    if (!entry) return 'This worktree is gone: its changes were kept or discarded.';
    return (await baseContent(entry.worktree, query.data.path)) ?? '';
  }

  private entry(agentId: string): WorktreeEntry {
    const entry = this.entries.get(agentId);
    if (!entry) throw new ArborError('INPUT_INVALID', 'This agent has no worktree (any more): its changes were kept or discarded, or it runs in your folder.', { agentId });
    return entry;
  }

  private settled(agentId: string): WorktreeEntry {
    const entry = this.entry(agentId);
    const busy = this.runtime.agents.all().some((a) => a.run === entry.agent.run && a.status === 'running');
    if (busy) throw new ArborError('INPUT_INVALID', `"${entry.agent.label}" is still working in its worktree. Stop it or wait until it is idle, then try again.`);
    return entry;
  }

  private async close(entry: WorktreeEntry): Promise<void> {
    this.entries.delete(entry.agent.id);
    if (this.runtime.agents.isLive(entry.agent)) await this.runtime.end(entry.agent).catch((err: unknown) => reportError(this.log, `Could not end "${entry.agent.label}"`, err));
    await discardWorktree(entry.worktree);
  }
}
