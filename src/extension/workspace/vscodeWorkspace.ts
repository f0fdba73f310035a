import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ArborError, once } from '../../core';
import {
  MAX_FILE_BYTES,
  NodeWorkspace,
  decodeText,
  workspaceFilesPart,
  isInside,
  resolveWorkspacePath,
  toPosix,
  type ListFilesQuery,
  type ListFilesResult,
  type SearchTextQuery,
  type SearchTextResult,
  type TextContent,
  type WorkspaceDiagnostic,
  type WorkspacePath,
  type WorkspacePort,
  type WriteOptions,
} from '../../core/workspace';

/**
 * The workspace port in the editor. Reads prefer the open document, so an agent sees the
 * user's unsaved changes; writes go through `WorkspaceEdit`, so they land in the editor's undo
 * stack and a document the user is editing is changed in place (and left unsaved if it had
 * unsaved changes of the user's; a clean document is saved so the change reaches the disk).
 * Listing and search run the ripgrep that ships with the editor, with the user's
 * `files.exclude` and `search.exclude`; without it they fall back to the Node scan. Both are file
 * search, a part of the core loaded at the first listing or search.
 * Diagnostics are the Problems panel's errors and warnings.
 *
 * Confinement: paths are resolved to their real location (resolveWorkspacePath); a file not open
 * in the editor is read through ConfinedFiles, which refuses a link swapped in since. The editor
 * writes by path and follows links itself, so right before each step that touches the disk
 * (opening the document, applying the edit, saving) the path is confirmed to still hold no link
 * (`ConfinedFiles.confirm`): a swap is refused with PATH_OUTSIDE_WORKSPACE. What stays open is the
 * instant between that check and the editor's own write, which only the Node port closes.
 */
export class VsCodeWorkspace implements WorkspacePort {
  private found?: { rg: string | undefined };

  /**
   * `ripgrep` is the binary, or how to find it: looked up at the first listing or search, not
   * when the workspace is made (which the editor's activation waits for).
   */
  constructor(private readonly ripgrep: string | undefined | (() => string | undefined)) {}

  private rg(): string | undefined {
    this.found ??= { rg: typeof this.ripgrep === 'function' ? this.ripgrep() : this.ripgrep };
    return this.found.rg;
  }

  folders(): readonly string[] {
    return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => f.uri.fsPath);
  }

  resolve(p: string): Promise<WorkspacePath> {
    return resolveWorkspacePath(this.folders(), p);
  }

  async readText(p: WorkspacePath, signal?: AbortSignal): Promise<TextContent> {
    signal?.throwIfAborted();
    const open = openDocument(p);
    if (open) return { text: open.getText(), source: open.isDirty ? 'buffer' : 'disk' };
    return { text: decodeText(await confined().readFile(p, MAX_FILE_BYTES), p.relative), source: 'disk' };
  }

  async exists(p: WorkspacePath): Promise<boolean> {
    return openDocument(p) !== undefined || (await confined().exists(p));
  }

  async writeText(p: WorkspacePath, text: string, options: WriteOptions = {}): Promise<void> {
    const uri = vscode.Uri.file(p.absolute);
    const edit = new vscode.WorkspaceEdit();
    if (!(await this.exists(p))) {
      if (options.expected !== undefined) workspaceFilesPart().checkExpected(p.relative, null, options.expected);
      edit.createFile(uri, { contents: new TextEncoder().encode(text), overwrite: false, ignoreIfExists: false });
      await confined().confirm(p);
      if (!(await vscode.workspace.applyEdit(edit))) throw new ArborError('TOOL_FAILED', `The editor refused to create "${p.relative}".`, { path: p.relative });
      return;
    }
    await confined().confirm(p);
    const document = await vscode.workspace.openTextDocument(uri);
    // Checked on the document the edit applies to, right before it: nothing can come between.
    if (options.expected !== undefined) workspaceFilesPart().checkExpected(p.relative, document.getText(), options.expected);
    const hadUnsavedChanges = document.isDirty;
    edit.replace(uri, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), text);
    await confined().confirm(p);
    if (!(await vscode.workspace.applyEdit(edit))) throw new ArborError('TOOL_FAILED', `The editor refused the edit of "${p.relative}".`, { path: p.relative });
    if (!hadUnsavedChanges && document.isDirty && !(await saveEdited(document, () => confined().confirm(p)))) {
      throw new ArborError('TOOL_FAILED', `"${p.relative}" was changed in the editor but could not be saved.`, { path: p.relative });
    }
  }

  async deleteFile(p: WorkspacePath): Promise<void> {
    await confined().confirm(p);
    const edit = new vscode.WorkspaceEdit();
    edit.deleteFile(vscode.Uri.file(p.absolute), { ignoreIfNotExists: true });
    if (!(await vscode.workspace.applyEdit(edit))) throw new ArborError('TOOL_FAILED', `The editor refused to delete "${p.relative}".`, { path: p.relative });
  }

  listFiles(query: ListFilesQuery): Promise<ListFilesResult> {
    const folders = this.requireFolders();
    const exclude = excludeGlobs();
    const rg = this.rg();
    if (!rg) return new NodeWorkspace({ folders, exclude }).listFiles(query);
    return workspaceFilesPart().ripgrepListFiles(rg, { folders, exclude, signal: query.signal }, query.glob, query.limit);
  }

  searchText(query: SearchTextQuery): Promise<SearchTextResult> {
    const folders = this.requireFolders();
    const exclude = excludeGlobs();
    const rg = this.rg();
    if (!rg) return new NodeWorkspace({ folders, exclude }).searchText(query);
    return workspaceFilesPart().ripgrepSearch(rg, { folders, exclude, signal: query.signal }, query);
  }

  diagnostics(p?: WorkspacePath): Promise<WorkspaceDiagnostic[]> {
    const folders = this.requireFolders();
    const entries: [vscode.Uri, readonly vscode.Diagnostic[]][] = p
      ? [[vscode.Uri.file(p.absolute), vscode.languages.getDiagnostics(vscode.Uri.file(p.absolute))]]
      : vscode.languages.getDiagnostics();
    const out: WorkspaceDiagnostic[] = [];
    for (const [uri, list] of entries) {
      if (uri.scheme !== 'file') continue;
      const relative = p?.relative ?? relativeTo(folders, uri.fsPath);
      if (relative === undefined) continue;
      for (const d of list) {
        if (d.severity !== vscode.DiagnosticSeverity.Error && d.severity !== vscode.DiagnosticSeverity.Warning) continue;
        const code = typeof d.code === 'object' ? String(d.code.value) : d.code === undefined ? undefined : String(d.code);
        out.push({
          path: relative,
          line: d.range.start.line + 1,
          column: d.range.start.character + 1,
          severity: d.severity === vscode.DiagnosticSeverity.Error ? 'error' : 'warning',
          message: d.message,
          source: d.source,
          code,
        });
      }
    }
    out.sort((a, b) => (a.severity !== b.severity ? (a.severity === 'error' ? -1 : 1) : a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
    return Promise.resolve(out);
  }

  private requireFolders(): readonly string[] {
    const folders = this.folders();
    if (folders.length === 0) throw new ArborError('WORKSPACE_NONE', 'No workspace folder is open, so there are no files to work on. Ask the user to open a folder.');
    return folders;
  }
}

/** Reads and checks of the disk that re-check confinement at each use (the core's workspace files part, loaded at the first). */
const confined = once(() => new (workspaceFilesPart().ConfinedFiles)());

function openDocument(p: WorkspacePath): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && !d.isClosed && d.uri.fsPath === p.absolute);
}

function relativeTo(folders: readonly string[], file: string): string | undefined {
  const folder = folders.find((f) => isInside(f, file));
  if (!folder) return undefined;
  const relative = toPosix(path.relative(folder, file));
  return folders.length > 1 ? `${path.basename(folder)}/${relative}` : relative;
}

/** The globs the user excluded from the explorer (`files.exclude`) and from search (`search.exclude`). */
export function excludeGlobs(): string[] {
  const globs = new Set<string>();
  for (const [section, key] of [['files', 'exclude'], ['search', 'exclude']] as const) {
    const value: unknown = vscode.workspace.getConfiguration(section).get(key);
    if (!value || typeof value !== 'object') continue;
    for (const [glob, on] of Object.entries(value)) if (on === true) globs.add(glob);
  }
  return [...globs];
}

/** The ripgrep binary the editor ships (`@vscode/ripgrep` under its app root), if there is one. */
export function findRipgrep(appRoot: string): string | undefined {
  const exe = process.platform === 'win32' ? 'rg.exe' : 'rg';
  const candidates = [
    path.join(appRoot, 'node_modules', '@vscode', 'ripgrep', 'bin', exe),
    path.join(appRoot, 'node_modules.asar.unpacked', '@vscode', 'ripgrep', 'bin', exe),
    path.join(appRoot, 'node_modules', 'vscode-ripgrep', 'bin', exe),
  ];
  return candidates.find((c) => {
    try {
      fs.accessSync(c, fs.constants.X_OK);
      return true;
    } catch {
      // Not there, or not executable: the next candidate.
      return false;
    }
  });
}

/** Attempts at saving an edited document; the first can fail right after the edit under load. */
const SAVE_ATTEMPTS = 5;
const SAVE_RETRY_MS = 300;

/**
 * Saves a document the agent just edited. Right after `applyEdit`, a save can be refused while
 * the workbench is still busy with the edit (seen under heavy load: the first attempt returns
 * false, one a moment later succeeds), so it is tried again a few times before giving up.
 */
async function saveEdited(document: vscode.TextDocument, confirm: () => Promise<void>): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    // The save writes by path: the path is confirmed right before each attempt.
    await confirm();
    if ((await document.save()) || !document.isDirty) return true;
    if (attempt === SAVE_ATTEMPTS) return false;
    await new Promise((resolve) => setTimeout(resolve, SAVE_RETRY_MS));
  }
}
