import * as path from 'node:path';
import * as vscode from 'vscode';
import { ArborError, isArborError, messageOf, type Runtime } from '../../core';
import type { JsonlSessionStore } from '../../core/sessions';
import { parsedArgument, reportError } from '../errorReporting';
import { filesChangedText, type ChangedFileNode } from './changedFileNode';
import type { ChangedFilesIndex } from './changedFiles';
import { recordedUri } from './originalContent';
import { parseChangedFile, parseChangesTarget, type ChangesTarget } from './reviewArguments';

export interface ChangeReviewDeps {
  runtime: Runtime;
  index: ChangedFilesIndex;
  /** Names past sessions in the palette's picker (absent when sessions are kept in memory only). */
  store: JsonlSessionStore | undefined;
  log: vscode.LogOutputChannel;
}

/** How a review opened: VS Code's multi-file diff editor, or one diff editor per file. */
export type ReviewOpened = 'changes-editor' | 'diff-editors';

/** What a whole-agent Undo did, file by file. */
export interface UndoOutcome {
  undone: string[];
  /** Changed since by someone else: left as they are, their diffs opened. */
  refused: string[];
  /** Failed for another reason (the message says why). */
  failed: Array<{ path: string; message: string }>;
  cancelled: boolean;
}

/** One file's Undo: done, or refused because the file changed since the agent wrote it. */
export type FileUndoOutcome = 'undone' | 'refused';

const UNDO_CHOICE = 'Undo Changes';

/**
 * Review, Keep and Undo of what an agent changed, per file and per agent, for live agents and
 * past sessions alike (a change set is keyed by session id and kept beside the session).
 *
 * - Review opens the diffs, original (read-only, from the record) against the file as it is now:
 *   all of them in VS Code's multi-file diff editor when the editor has it, else one diff each.
 * - Keep drops the record and leaves the files as they are.
 * - Undo puts each file back through the workspace port, whose edits go through WorkspaceEdit:
 *   they land in the editor's undo stack and change an open editor's buffer in place. A file
 *   that changed since the agent last wrote it is refused, left alone, and its diff (the agent's
 *   version against now) opens, so nobody's later work is lost. Undoing a whole agent asks first,
 *   with a modal that lists the files.
 */
export class ChangeReview {
  /** Asks before a whole agent's changes are undone. Tests replace it: the test editor refuses modal dialogs. */
  confirmUndo: (label: string, files: readonly ChangedFileNode[]) => Promise<boolean> = confirmWithModal;

  constructor(private readonly deps: ChangeReviewDeps) {}

  register(): vscode.Disposable[] {
    const { log } = this.deps;
    return [
      vscode.commands.registerCommand('arbor.reviewChanges', async (arg?: unknown) => {
        const target = parsedArgument(log, () => parseChangesTarget('Arbor: Review Changes', arg));
        return this.guard('Could not open the changes', async () => {
          if (target.kind === 'file') return this.reviewFile(target.file);
          const sessionId = await this.sessionOf(target, 'Arbor: Review Changes');
          return sessionId === undefined ? undefined : this.review(sessionId);
        });
      }),
      vscode.commands.registerCommand('arbor.keepChanges', async (arg?: unknown) => {
        const target = parsedArgument(log, () => parseChangesTarget('Arbor: Keep Changes', arg));
        return this.guard('Could not keep the changes', async () => {
          if (target.kind === 'file') return this.keepFile(target.file);
          const sessionId = await this.sessionOf(target, 'Arbor: Keep Changes');
          return sessionId === undefined ? undefined : this.keepAll(sessionId);
        });
      }),
      vscode.commands.registerCommand('arbor.undoChanges', async (arg?: unknown) => {
        const target = parsedArgument(log, () => parseChangesTarget('Arbor: Undo Changes', arg));
        return this.guard('Could not undo the changes', async () => {
          if (target.kind === 'file') return this.undoFile(target.file);
          const sessionId = await this.sessionOf(target, 'Arbor: Undo Changes');
          return sessionId === undefined ? undefined : this.undoAll(sessionId);
        });
      }),
      vscode.commands.registerCommand('arbor.keepFileChange', async (arg?: unknown) => {
        const file = parsedArgument(log, () => parseChangedFile('Arbor: Keep', arg));
        return this.guard('Could not keep the change', () => this.keepFile(file));
      }),
      vscode.commands.registerCommand('arbor.undoFileChange', async (arg?: unknown) => {
        const file = parsedArgument(log, () => parseChangedFile('Arbor: Undo', arg));
        return this.guard('Could not undo the change', () => this.undoFile(file));
      }),
    ];
  }

  /** Opens every change of a session; says so when there is none. */
  async review(sessionId: string): Promise<ReviewOpened | undefined> {
    const label = await this.labelOf(sessionId);
    const files = await this.deps.index.refresh(sessionId);
    if (files.length === 0) {
      void vscode.window.showInformationMessage(noChangesText(label));
      return undefined;
    }
    const resources: [vscode.Uri, vscode.Uri, vscode.Uri][] = [];
    for (const file of files) {
      const now = await this.fileUri(file.path);
      resources.push([now, recordedUri(sessionId, file.path, now, 'original'), now]);
    }
    try {
      await vscode.commands.executeCommand('vscode.changes', `Changes by ${label}`, resources);
      return 'changes-editor';
    } catch (err) {
      // An editor without the multi-file diff editor: one diff per file.
      this.deps.log.info(`The multi-file diff editor is not available (${messageOf(err)}); opening one diff per file.`);
      for (const [now, original] of resources) {
        await vscode.commands.executeCommand('vscode.diff', original, now, diffTitle(now, label), { preview: false });
      }
      return 'diff-editors';
    }
  }

  async reviewFile(file: ChangedFileNode): Promise<ReviewOpened> {
    const label = await this.labelOf(file.sessionId);
    const now = await this.fileUri(file.path);
    await vscode.commands.executeCommand('vscode.diff', recordedUri(file.sessionId, file.path, now, 'original'), now, diffTitle(now, label), { preview: true });
    return 'diff-editors';
  }

  async keepAll(sessionId: string): Promise<number> {
    const label = await this.labelOf(sessionId);
    const files = await this.deps.index.refresh(sessionId);
    if (files.length === 0) {
      void vscode.window.showInformationMessage(noChangesText(label));
      return 0;
    }
    await this.deps.runtime.changes.keepAll(sessionId);
    vscode.window.setStatusBarMessage(`Arbor: kept the changes ${label} made to ${files.length === 1 ? files[0].path : `${files.length} files`}.`, 5000);
    return files.length;
  }

  async keepFile(file: ChangedFileNode): Promise<void> {
    await this.deps.runtime.changes.keep(file.sessionId, file.path);
    vscode.window.setStatusBarMessage(`Arbor: kept the change to ${file.path}.`, 5000);
  }

  async undoFile(file: ChangedFileNode): Promise<FileUndoOutcome> {
    const label = await this.labelOf(file.sessionId);
    try {
      await this.deps.runtime.changes.restore(file.sessionId, file.path);
    } catch (err) {
      if (!isArborError(err, 'CHANGED_SINCE')) throw err;
      await this.showChangedSince([file], label);
      return 'refused';
    }
    vscode.window.setStatusBarMessage(`Arbor: ${file.path} is back as it was before ${label} changed it.`, 5000);
    return 'undone';
  }

  async undoAll(sessionId: string): Promise<UndoOutcome> {
    const label = await this.labelOf(sessionId);
    const files = await this.deps.index.refresh(sessionId);
    const outcome: UndoOutcome = { undone: [], refused: [], failed: [], cancelled: false };
    if (files.length === 0) {
      void vscode.window.showInformationMessage(noChangesText(label));
      return outcome;
    }
    if (!(await this.confirmUndo(label, files))) return { ...outcome, cancelled: true };
    const refused: ChangedFileNode[] = [];
    for (const file of files) {
      try {
        await this.deps.runtime.changes.restore(sessionId, file.path);
        outcome.undone.push(file.path);
      } catch (err) {
        if (isArborError(err, 'CHANGED_SINCE')) {
          refused.push(file);
          outcome.refused.push(file.path);
        } else {
          const message = messageOf(err);
          this.deps.log.error(`Undo of ${file.path} (${label}): ${message}`);
          outcome.failed.push({ path: file.path, message });
        }
      }
    }
    if (refused.length > 0) await this.showChangedSince(refused, label, outcome.undone.length);
    if (outcome.failed.length > 0) {
      void vscode.window.showErrorMessage(
        `Arbor: ${outcome.failed.length} of ${label}'s changes could not be undone: ${outcome.failed.map((f) => `${f.path}: ${f.message}`).join(' ')} They are still listed; try again, or Keep them.`,
      );
    } else if (refused.length === 0) {
      vscode.window.setStatusBarMessage(`Arbor: undid the changes ${label} made to ${files.length === 1 ? files[0].path : `${files.length} files`}.`, 5000);
    }
    return outcome;
  }

  /** Opens what changed since the agent's version of each refused file, and says what to do next. */
  private async showChangedSince(files: readonly ChangedFileNode[], label: string, undone?: number): Promise<void> {
    const workspace = this.deps.runtime.workspace;
    const gone: string[] = [];
    for (const file of files) {
      const now = await this.fileUri(file.path);
      const exists = workspace ? await workspace.exists(await workspace.resolve(file.path)) : false;
      if (!exists) {
        gone.push(file.path);
        continue;
      }
      await vscode.commands.executeCommand('vscode.diff', recordedUri(file.sessionId, file.path, now, 'written'), now, `${path.basename(now.fsPath)} (as ${label} left it ↔ now)`, {
        preview: files.length === 1,
      });
    }
    const names = files.map((f) => f.path).join(', ');
    const done = undone ? `Undid ${undone} file${undone === 1 ? '' : 's'}; ` : '';
    const why = gone.length === files.length ? 'was deleted' : 'changed';
    const message =
      `Arbor: ${done}${names} ${why} since ${label} last wrote ${files.length === 1 ? 'it' : 'them'}, so Undo left ${files.length === 1 ? 'it' : 'them'} as ${files.length === 1 ? 'it is' : 'they are'}` +
      `${gone.length < files.length ? ' (the diff shows what changed since)' : ''}. Put the content back by hand, or Keep to clear the record.`;
    const keep = files.length === 1 ? 'Keep' : 'Keep All of These';
    void vscode.window.showWarningMessage(message, keep).then(async (pick) => {
      if (pick !== keep) return;
      for (const file of files) await this.deps.runtime.changes.keep(file.sessionId, file.path);
    });
  }

  private async sessionOf(target: ChangesTarget, title: string): Promise<string | undefined> {
    if (target.kind === 'session') return target.sessionId;
    if (target.kind === 'file') return target.file.sessionId;
    const ids = await this.deps.runtime.changes.sessions();
    if (ids.length === 0) {
      void vscode.window.showInformationMessage('No agent has changes to review. The files an agent edits are listed under it in the Agents view until you keep or undo them.');
      return undefined;
    }
    const items: Array<vscode.QuickPickItem & { id: string }> = [];
    for (const id of ids) {
      const files = await this.deps.index.refresh(id);
      const live = this.deps.runtime.agents.get(id);
      items.push({ label: await this.labelOf(id), description: `${filesChangedText(files.length)} · ${live ? 'live' : 'past session'}`, detail: files.map((f) => f.path).join(', '), id });
    }
    const picked = await vscode.window.showQuickPick(items, { title, placeHolder: 'Choose the agent whose changes to act on', matchOnDetail: true });
    return picked?.id;
  }

  private async labelOf(sessionId: string): Promise<string> {
    const live = this.deps.runtime.agents.get(sessionId);
    if (live) return `"${live.label}"`;
    // An unreadable session folder costs only the label: the session is named by its id.
    const entry = (await this.deps.store?.sessionEntries([sessionId]).catch(() => undefined))?.sessions[0];
    return entry ? `"${entry.header.label}"` : `session ${sessionId}`;
  }

  private async fileUri(relative: string): Promise<vscode.Uri> {
    const workspace = this.deps.runtime.workspace;
    if (!workspace || workspace.folders().length === 0) {
      throw new ArborError('WORKSPACE_NONE', 'No workspace folder is open. Open the folder the agent worked in, then try again.');
    }
    return vscode.Uri.file((await workspace.resolve(relative)).absolute);
  }

  private async guard<T>(what: string, action: () => Promise<T>): Promise<T | undefined> {
    try {
      return await action();
    } catch (err) {
      reportError(this.deps.log, what, err);
      return undefined;
    }
  }
}

function noChangesText(label: string): string {
  return `${label} has no changes to review: it changed no files, or its changes were already kept or undone.`;
}

function diffTitle(file: vscode.Uri, label: string): string {
  return `${path.basename(file.fsPath)} (before ${label} ↔ now)`;
}

async function confirmWithModal(label: string, files: readonly ChangedFileNode[]): Promise<boolean> {
  const shown = files.slice(0, 30).map((f) => `${f.path}${f.created ? ' (created by the agent: it will be deleted)' : ''}`);
  if (files.length > shown.length) shown.push(`… and ${files.length - shown.length} more`);
  const pick = await vscode.window.showWarningMessage(
    `Undo the changes ${label} made to ${files.length === 1 ? files[0].path : `${files.length} files`}?`,
    {
      modal: true,
      detail: `${shown.join('\n')}\n\nEach file goes back to its content before the agent changed it (Edit > Undo brings a file's change back). A file someone changed since is left as it is and its diff opens.`,
    },
    UNDO_CHOICE,
  );
  return pick === UNDO_CHOICE;
}
