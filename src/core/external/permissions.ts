import type * as acp from '@agentclientprotocol/sdk';
import { isArborError } from '../errors';
import { workspaceToolRunsPart } from '../parts';
import type { WorkspacePort } from '../workspace/port';

/**
 * The parts of an external agent's permission request that Arbor decides on its own terms.
 *
 * Invariants:
 * - Arbor answers a permission with a once-only option or not at all: "allow" is the agent's
 *   `allow_once` option, "refuse" its `reject_once` option, and `cancelled` when it offers no
 *   such option. Never `allow_always` or `reject_always`: those would let the agent decide later
 *   calls itself, past Arbor's rules and the person.
 * - Every file an edit permission names (each location, each diff) is its own subject, confined
 *   to the workspace and shown with its own diff made from the file's current text; a file that
 *   cannot be confined or read makes the whole permission unanswerable (`PermissionFiles.ok`
 *   false), never a smaller permission.
 */

const CANCELLED: acp.RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };

/** The agent's once-only allow option, if it offers one. */
export function allowOnce(options: readonly acp.PermissionOption[]): acp.RequestPermissionResponse | undefined {
  const option = options.find((o) => o.kind === 'allow_once');
  return option ? { outcome: { outcome: 'selected', optionId: option.optionId } } : undefined;
}

/** A refusal: the agent's once-only reject option, else `cancelled`. */
export function refuse(options: readonly acp.PermissionOption[]): acp.RequestPermissionResponse {
  const option = options.find((o) => o.kind === 'reject_once');
  return option ? { outcome: { outcome: 'selected', optionId: option.optionId } } : CANCELLED;
}

export function cancelled(): acp.RequestPermissionResponse {
  return CANCELLED;
}

/** An edit as the person is shown it: the file's workspace path, its text now (null: no such file) and the text proposed. */
export interface ShownEdit {
  relative: string;
  oldText: string | null;
  newText: string;
}

/** One file an edit permission names, with the edits its diffs propose (none for a location alone). */
export interface PermissionFile {
  relative: string;
  edits: ShownEdit[];
}

export type PermissionFiles =
  | { ok: true; files: PermissionFile[] }
  | { ok: false; path: string; outside: boolean; message: string };

/**
 * Every file the tool call names, in the order named (locations, then diffs), once each; a
 * diff's old side is the file's current text in the workspace, whatever the agent says it was.
 */
export async function filesOfPermission(call: acp.ToolCallUpdate, workspace: WorkspacePort, signal: AbortSignal): Promise<PermissionFiles> {
  const files = new Map<string, PermissionFile>();
  const named: Array<{ path: string; newText?: string }> = [
    ...(call.locations ?? []).map((l) => ({ path: l.path })),
    ...(call.content ?? []).flatMap((c) => (c.type === 'diff' ? [{ path: c.path, newText: c.newText }] : [])),
  ];
  for (const { path, newText } of named) {
    try {
      const file = await workspace.resolve(path);
      const entry = files.get(file.relative) ?? { relative: file.relative, edits: [] };
      files.set(file.relative, entry);
      if (newText === undefined) continue;
      const current = (await workspace.exists(file)) ? (await workspace.readText(file, signal)).text : null;
      entry.edits.push({ relative: file.relative, oldText: current, newText });
    } catch (err) {
      if (!isArborError(err) || signal.aborted) throw err;
      return { ok: false, path, outside: err.code === 'PATH_OUTSIDE_WORKSPACE', message: err.message };
    }
  }
  return { ok: true, files: [...files.values()] };
}

/**
 * One file of a permission as the person is asked about it: the call, which file of how many,
 * and that file's diffs only (the other files are asked about on their own).
 */
export function describeFileOfPermission(call: acp.ToolCallUpdate, file: PermissionFile, files: readonly PermissionFile[]): string {
  const lines: string[] = [call.title ?? '(untitled tool call)'];
  if (call.kind) lines.push(`Kind: ${call.kind}`);
  if (files.length > 1) {
    const index = files.indexOf(file) + 1;
    lines.push(`File ${index} of ${files.length}: ${file.relative}`);
    lines.push(`This request names ${files.length} files (${files.map((f) => f.relative).join(', ')}); each is asked about on its own, and it is allowed only if every one is.`);
  } else lines.push(`File: ${file.relative}`);
  if (call.rawInput !== undefined) lines.push(`Input: ${JSON.stringify(call.rawInput, null, 2)}`);
  for (const c of call.content ?? []) if (c.type === 'content' && c.content.type === 'text') lines.push(c.content.text);
  for (const edit of file.edits) lines.push(workspaceToolRunsPart().unifiedDiff(edit.relative, edit.oldText, edit.newText));
  return lines.join('\n');
}
