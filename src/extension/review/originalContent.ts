import * as vscode from 'vscode';
import * as z from 'zod';
import { once } from '../../core';
import type { ChangeSets } from '../../core/workspace';

export const ORIGINAL_SCHEME = 'arbor-original';

/** Which recorded content of a changed file a document shows. */
export type RecordedSide = 'original' | 'written';

const querySchema = once(() => z.object({
  session: z.string().min(1).max(1000),
  path: z.string().min(1).max(4096),
  side: z.enum(['original', 'written']),
}));

/**
 * `arbor-original:<the file's absolute path>?session=<id>&path=<workspace-relative path>&side=<original|written>`.
 * The URI's path is the file's own, so the editor picks its language and a diff shows it as the
 * same file changed (not renamed); the query names the record.
 */
export function recordedUri(sessionId: string, relativePath: string, file: vscode.Uri, side: RecordedSide): vscode.Uri {
  return file.with({ scheme: ORIGINAL_SCHEME, query: new URLSearchParams({ session: sessionId, path: relativePath, side }).toString() });
}

/**
 * Serves, read-only, what a change set recorded of a file: its content before the agent's
 * first change (`original`; empty for a file the agent created) or what the agent last wrote
 * (`written`). The scheme has no file system behind it, so nothing can be saved into it. The
 * URI is parsed first: a malformed one shows why instead of failing.
 */
export class OriginalContentProvider implements vscode.TextDocumentContentProvider {
  constructor(private readonly changes: ChangeSets) {}

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const query = querySchema().safeParse(Object.fromEntries(new URLSearchParams(uri.query)));
    if (!query.success) return 'This link does not name a change Arbor recorded (it needs a session, a path and a side).';
    const relative = query.data.path;
    const entry = (await this.changes.list(query.data.session)).find((f) => f.path === relative);
    if (!entry) return `Arbor has no record of this change to ${relative} any more: it was kept or undone.`;
    return (query.data.side === 'original' ? entry.original : entry.written) ?? '';
  }
}
