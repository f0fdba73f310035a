// A file an agent changed, as the Agents view lists it under the agent. Pure (no 'vscode'
// import): the rows of the view are built and unit-tested in plain Node.

/** A changed file under its agent in the Agents view (and a command argument for per-file Keep/Undo). */
export interface ChangedFileNode {
  readonly type: 'changed-file';
  readonly sessionId: string;
  /** Workspace-relative, as the change set names it. */
  readonly path: string;
  /** The agent created the file (Undo deletes it). */
  readonly created: boolean;
}

/** "1 file changed", "3 files changed". */
export function filesChangedText(count: number): string {
  return `${count} file${count === 1 ? '' : 's'} changed`;
}
