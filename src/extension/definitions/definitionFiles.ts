import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { messageOf, type Runtime } from '../../core';
import type { DefinitionFormat, DefinitionScope, ResolvedDefinitions } from '../../core/definitions';
import { Disposable } from '../disposable';
import { definitionsPart } from '../parts';

/**
 * The agent definition files of the workspace folders and of the user, kept in the runtime's
 * set. Each workspace folder's `.arbor/agents/*.md` and, with `arbor.agents.readOtherFormats`
 * (on by default), `.claude/agents/*.md` and `.github/agents/*.agent.md`; and the user folder
 * (`arbor.agents.userFolder`, `~/.arbor/agents` by default). Files are watched: every change
 * reads them all again, and the new set applies to agents started afterwards. A refused file is
 * a diagnostic on that file (the Problems view lists it, a click opens it), and what was left
 * out of a file, or which of two same-named files won, is a hint there and a line in the log.
 * Only listing the folders is done here: reading, parsing and showing problems are the
 * definitions part's, which loads once a definition file exists.
 */
export const DEFINITION_SOURCES: ReadonlyArray<{ dir: string; suffix: string; format: DefinitionFormat }> = [
  { dir: '.arbor/agents', suffix: '.md', format: 'arbor' },
  { dir: '.claude/agents', suffix: '.md', format: 'claude' },
  { dir: '.github/agents', suffix: '.agent.md', format: 'copilot' },
];

export function userDefinitionsFolder(): string {
  const setting = vscode.workspace.getConfiguration('arbor.agents').get<string>('userFolder')?.trim();
  if (!setting) return path.join(os.homedir(), '.arbor', 'agents');
  return setting.startsWith('~') ? path.join(os.homedir(), setting.slice(1)) : setting;
}

/** A folder definitions are read from, in one format. */
export interface DefinitionPlace {
  dir: vscode.Uri;
  suffix: string;
  format: DefinitionFormat;
  scope: DefinitionScope;
}

const readOtherFormats = (): boolean => vscode.workspace.getConfiguration('arbor.agents').get<boolean>('readOtherFormats') ?? true;

export class AgentDefinitionFiles extends Disposable {
  private readonly diagnostics = this._register(vscode.languages.createDiagnosticCollection('arbor.agentDefinitions'));
  private readonly changed = this._register(new vscode.EventEmitter<void>());
  /** Fires after every reading of the files, once the runtime has the new set. */
  readonly onDidChange = this.changed.event;
  /** The watchers of the folders read now (made again when the folders or the settings change). */
  private watching: vscode.Disposable | undefined;
  private reading: Promise<void> = Promise.resolve();
  private again = false;
  private running = false;
  private partLoaded = false;

  constructor(
    private readonly runtime: Runtime,
    private readonly log: vscode.LogOutputChannel,
    /** Called after each reading, with the set in use (the models a definition names are listed then). */
    private readonly afterRead: (resolved: ResolvedDefinitions) => void = () => undefined,
  ) {
    super();
    this._register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.rewatch()));
    // A save in the editor is read at once, whether or not the file watcher reports it.
    this._register(
      vscode.workspace.onDidSaveTextDocument((doc) => {
        if (this.isDefinitionFile(doc.uri)) void this.reload();
      }),
    );
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('arbor.agents')) this.rewatch();
      }),
    );
    this._register({
      dispose: () => {
        this.watching?.dispose();
      },
    });
    this.rewatch();
  }

  /** Resolves once the files as they are now have been read (a reading under way, and the one a change asked for). */
  whenRead(): Promise<void> {
    return this.reading;
  }

  /** Read the files again now (a watcher fired, a setting changed, or a caller asks). */
  reload(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.reading;
    }
    this.running = true;
    this.reading = (async () => {
      try {
        do {
          this.again = false;
          await this.readAll();
        } while (this.again);
      } catch (err) {
        this.log.error(`Arbor: could not read the agent definitions: ${messageOf(err)}`);
      } finally {
        this.running = false;
      }
    })();
    return this.reading;
  }

  private rewatch(): void {
    this.watching?.dispose();
    const patterns: vscode.GlobPattern[] = [];
    // The folders too: when one is deleted whole, the editor reports only the folder's deletion;
    // and the top folder (`.arbor`, `.claude`, `.github`): made with its files in one go, the
    // editor may report only that folder, its files written before it watched inside.
    const tops = [...new Set(this.sources().map((s) => s.dir.split('/')[0]))];
    const globs = `{${[...tops, ...this.sources().flatMap((s) => [s.dir, `${s.dir}/*${s.suffix}`])].join(',')}}`;
    for (const folder of vscode.workspace.workspaceFolders ?? []) patterns.push(new vscode.RelativePattern(folder, globs));
    const user = vscode.Uri.file(userDefinitionsFolder());
    patterns.push(new vscode.RelativePattern(vscode.Uri.joinPath(user, '..'), path.basename(user.fsPath)), new vscode.RelativePattern(user, '*.md'));
    const onChange = (): void => void this.reload();
    this.watching = vscode.Disposable.from(
      ...patterns.flatMap((pattern) => {
        const watcher = vscode.workspace.createFileSystemWatcher(pattern);
        return [watcher, watcher.onDidCreate(onChange), watcher.onDidChange(onChange), watcher.onDidDelete(onChange)];
      }),
    );
    void this.reload();
  }

  private isDefinitionFile(uri: vscode.Uri): boolean {
    const dir = path.dirname(uri.fsPath);
    if (dir === userDefinitionsFolder()) return uri.fsPath.endsWith('.md');
    return this.sources().some((s) => uri.fsPath.endsWith(s.suffix) && dir.endsWith(path.join(...s.dir.split('/'))));
  }

  private sources(): typeof DEFINITION_SOURCES {
    return readOtherFormats() ? DEFINITION_SOURCES : DEFINITION_SOURCES.slice(0, 1);
  }

  private async readAll(): Promise<void> {
    const places: DefinitionPlace[] = [];
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      for (const s of this.sources()) places.push({ dir: vscode.Uri.joinPath(folder.uri, s.dir), suffix: s.suffix, format: s.format, scope: 'workspace' });
    }
    places.push({ dir: vscode.Uri.file(userDefinitionsFolder()), suffix: '.md', format: 'arbor', scope: 'user' });
    const files: Array<{ uri: vscode.Uri; place: DefinitionPlace }> = [];
    for (const place of places) for (const uri of await filesIn(place.dir, place.suffix)) files.push({ uri, place });
    if (files.length === 0 && !this.partLoaded) {
      this.runtime.definitions.replace([]);
      this.diagnostics.clear();
    } else {
      // Once loaded (a file was found), the part also says when the last file is gone.
      this.partLoaded = true;
      const part = definitionsPart();
      const resolved = await part.readDefinitions(files, new Set(this.runtime.toolNames()));
      this.runtime.definitions.replace(resolved.definitions);
      part.showDefinitionProblems(this.diagnostics, this.log, resolved);
      this.afterRead(resolved);
    }
    this.changed.fire();
  }
}

/** The files of `dir` ending in `suffix`, by name; none when the folder does not exist. */
async function filesIn(dir: vscode.Uri, suffix: string): Promise<vscode.Uri[]> {
  let names: string[];
  try {
    // Listed from the disk, not through the editor, which logs every folder that is not there.
    names = (await fs.promises.readdir(dir.fsPath, { withFileTypes: true })).filter((e) => !e.isDirectory()).map((e) => e.name);
  } catch {
    // No such folder: it holds no definitions.
    return [];
  }
  return names
    .filter((name) => name.toLowerCase().endsWith(suffix))
    .map((name) => vscode.Uri.joinPath(dir, name))
    .sort((a, b) => (a.fsPath < b.fsPath ? -1 : 1));
}
