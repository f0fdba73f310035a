// Where schedules are written: the `arbor.schedules` setting and `.arbor/schedules.json` in the
// first workspace folder (read only in a trusted workspace: a folder you open must not start
// runs by itself before you trust it). Both are watched; every change is parsed again and each
// new problem is reported once.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { messageOf } from '../../core';
import { Disposable } from '../disposable';
import { mergeSchedules, parseSchedules, type ParsedSchedules } from './scheduleConfig';

export const SCHEDULES_SETTING = 'schedules';
export const SCHEDULES_FILE = '.arbor/schedules.json';

export class ScheduleSources extends Disposable {
  private reported = new Set<string>();
  private reading: Promise<void> = Promise.resolve();

  constructor(
    private readonly onSchedules: (parsed: ParsedSchedules) => void,
    private readonly onProblem: (problem: string) => void,
  ) {
    super();
    const reread = (): void => void this.read();
    this._register(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration(`arbor.${SCHEDULES_SETTING}`)) reread();
      }),
    );
    this._register(vscode.workspace.onDidGrantWorkspaceTrust(reread));
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (folder) {
      // The folder too: when `.arbor` is deleted whole, the editor reports only the folder's deletion.
      const watcher = this._register(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, `{${path.posix.dirname(SCHEDULES_FILE)},${SCHEDULES_FILE}}`)));
      this._register(watcher.onDidCreate(reread));
      this._register(watcher.onDidChange(reread));
      this._register(watcher.onDidDelete(reread));
    }
  }

  /** The file's location, when a folder is open. */
  fileUri(): vscode.Uri | undefined {
    const folder = vscode.workspace.workspaceFolders?.[0];
    return folder && vscode.Uri.joinPath(folder.uri, SCHEDULES_FILE);
  }

  /** Reads both sources again and hands the result over; reads never overlap. */
  read(): Promise<void> {
    this.reading = this.reading.then(() => this.readOnce());
    return this.reading;
  }

  private async readOnce(): Promise<void> {
    const setting = parseSchedules(vscode.workspace.getConfiguration('arbor').get<unknown>(SCHEDULES_SETTING), `arbor.${SCHEDULES_SETTING}`);
    const file = await this.readFile();
    const merged = mergeSchedules(setting, file);
    // A problem is said once while it lasts; fixed and broken again, it is said again.
    const now = new Set(merged.problems);
    for (const problem of merged.problems) if (!this.reported.has(problem)) this.onProblem(problem);
    this.reported = now;
    this.onSchedules(merged);
  }

  private async readFile(): Promise<ParsedSchedules> {
    const uri = this.fileUri();
    if (!uri || !vscode.workspace.isTrusted) return { schedules: [], problems: [] };
    let text: string;
    try {
      text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    } catch {
      return { schedules: [], problems: [] }; // no file: no schedules from it
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      return { schedules: [], problems: [`${SCHEDULES_FILE} is not valid JSON (${messageOf(err)}); none of it was read.`] };
    }
    return parseSchedules(json, SCHEDULES_FILE);
  }
}
