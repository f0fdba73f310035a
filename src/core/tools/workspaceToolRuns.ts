import { createTwoFilesPatch } from 'diff';
import type * as z from 'zod';
import { ArborError } from '../errors';
import type { WorkspacePath, WorkspacePort } from '../workspace/port';
import { noWorkspace } from '../workspace/paths';
import { deniedResult } from './catalog';
import type { RuntimeToolContext } from './context';
import type { ToolResult } from './types';
import {
  DEFAULT_LIST_LIMIT,
  DEFAULT_SEARCH_LIMIT,
  MAX_DIAGNOSTICS,
  MAX_LINE_CHARS,
  MAX_READ_CHARS,
  MAX_READ_LINES,
  type createFileArgsSchema,
  type editFileArgsSchema,
  type getDiagnosticsArgsSchema,
  type listFilesArgsSchema,
  type readFileArgsSchema,
  type searchTextArgsSchema,
} from './workspaceToolArgs';

/**
 * What the workspace tools (workspaceTools.ts) do when a model calls them: a part loaded on the
 * first call (src/core/parts.ts), so the diff library and the formatting of reads, edits and
 * results cost nothing until an agent touches a file.
 */
function workspaceOf(ctx: RuntimeToolContext): WorkspacePort {
  const workspace = ctx.agent.run.workspace?.files ?? ctx.runtime.workspace;
  if (!workspace || workspace.folders().length === 0) throw noWorkspace();
  return workspace;
}

export async function readFile(args: z.output<ReturnType<typeof readFileArgsSchema>>, ctx: RuntimeToolContext): Promise<ToolResult> {
  const workspace = workspaceOf(ctx);
  const file = await workspace.resolve(args.path);
  const { text, source } = await workspace.readText(file, ctx.signal);
  return { content: numberedLines(file.relative, text, source, args.start_line, args.end_line) };
}

export async function listFiles(args: z.output<ReturnType<typeof listFilesArgsSchema>>, ctx: RuntimeToolContext): Promise<ToolResult> {
  const workspace = workspaceOf(ctx);
  const limit = args.limit ?? DEFAULT_LIST_LIMIT;
  const { files, truncated } = await workspace.listFiles({ glob: args.glob, limit, signal: ctx.signal });
  const what = args.glob ? `matching "${args.glob}"` : 'in the workspace';
  if (files.length === 0) return { content: `No files ${what}.` };
  const tail = truncated ? `\n[truncated at ${limit} paths; narrow the glob to see the rest.]` : '';
  return { content: `${files.length} file${files.length === 1 ? '' : 's'} ${what}:\n${files.join('\n')}${tail}` };
}

export async function searchText(args: z.output<ReturnType<typeof searchTextArgsSchema>>, ctx: RuntimeToolContext): Promise<ToolResult> {
  const workspace = workspaceOf(ctx);
  const limit = args.limit ?? DEFAULT_SEARCH_LIMIT;
  const { matches, truncated } = await workspace.searchText({
    pattern: args.query,
    isRegex: args.is_regex ?? false,
    caseSensitive: args.case_sensitive ?? false,
    glob: args.glob,
    limit,
    signal: ctx.signal,
  });
  if (matches.length === 0) return { content: `No matches for ${JSON.stringify(args.query)}${args.glob ? ` in files matching "${args.glob}"` : ''}.` };
  const lines = matches.map((m) => `${m.path}:${m.line}:${m.text}`);
  if (truncated) lines.push(`[truncated at ${limit} matches; narrow the search with glob or a more specific query.]`);
  return { content: lines.join('\n') };
}

export async function editFile(args: z.output<ReturnType<typeof editFileArgsSchema>>, ctx: RuntimeToolContext): Promise<ToolResult> {
  const workspace = workspaceOf(ctx);
  const file = await workspace.resolve(args.path);
  const { text: before } = await workspace.readText(file, ctx.signal);
  const after = replaceExact(file.relative, before, args.old_text, args.new_text, args.replace_all ?? false);
  if (after === before) throw new ArborError('TOOL_ARGUMENTS_INVALID', 'old_text and new_text are the same; there is nothing to change.');
  return applyWithApproval(ctx, workspace, file, before, after);
}

export async function createFile(args: z.output<ReturnType<typeof createFileArgsSchema>>, ctx: RuntimeToolContext): Promise<ToolResult> {
  const workspace = workspaceOf(ctx);
  const file = await workspace.resolve(args.path);
  if (await workspace.exists(file)) {
    throw new ArborError('FILE_EXISTS', `"${file.relative}" already exists; read it and use edit_file to change it.`, { path: file.relative });
  }
  return applyWithApproval(ctx, workspace, file, null, args.content);
}

export async function getDiagnostics(args: z.output<ReturnType<typeof getDiagnosticsArgsSchema>>, ctx: RuntimeToolContext): Promise<ToolResult> {
  const workspace = workspaceOf(ctx);
  const file = args.path ? await workspace.resolve(args.path) : undefined;
  const all = await workspace.diagnostics(file);
  const where = file ? `"${file.relative}"` : 'the workspace';
  if (all.length === 0) return { content: `No errors or warnings in ${where}.` };
  const errors = all.filter((d) => d.severity === 'error').length;
  const lines = all.slice(0, MAX_DIAGNOSTICS).map(
    (d) => `${d.path}:${d.line}:${d.column}: ${d.severity}: ${d.message}${d.source || d.code ? ` [${[d.source, d.code].filter(Boolean).join(' ')}]` : ''}`,
  );
  if (all.length > MAX_DIAGNOSTICS) lines.push(`[truncated: ${all.length - MAX_DIAGNOSTICS} more not shown; ask for one file at a time.]`);
  return { content: `${errors} error${errors === 1 ? '' : 's'} and ${all.length - errors} warning${all.length - errors === 1 ? '' : 's'} in ${where}:\n${lines.join('\n')}` };
}

/**
 * The requested lines, numbered like `cat -n`, within the line and character caps. Only the
 * lines returned are formatted, so a 5 MB file costs one split, not a copy of all of it.
 */
export function numberedLines(relative: string, text: string, source: 'disk' | 'buffer', start = 1, end?: number): string {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const total = text === '' ? 0 : lines.length;
  const from = Math.max(1, start);
  const origin = source === 'buffer' ? ', from the editor (unsaved changes included)' : '';
  if (total === 0) return `${relative}: the file is empty${origin}.`;
  if (from > total) {
    throw new ArborError('TOOL_ARGUMENTS_INVALID', `"${relative}" has ${total} lines; start_line ${from} is past its end.`, { path: relative, lines: total });
  }
  if (end !== undefined && end < from) throw new ArborError('TOOL_ARGUMENTS_INVALID', `end_line ${end} is before start_line ${from}.`);
  const last = Math.min(end ?? total, total);
  const width = String(last).length;
  const out: string[] = [];
  let chars = 0;
  let shown = from - 1;
  for (let n = from; n <= last; n++) {
    let line = lines[n - 1].replace(/\r$/, '');
    if (line.length > MAX_LINE_CHARS) line = `${line.slice(0, MAX_LINE_CHARS)}… (line clipped at ${MAX_LINE_CHARS} characters)`;
    const formatted = `${String(n).padStart(width)}\t${line}`;
    if (out.length === MAX_READ_LINES || (out.length > 0 && chars + formatted.length + 1 > MAX_READ_CHARS)) break;
    out.push(formatted);
    chars += formatted.length + 1;
    shown = n;
  }
  const header = `${relative} (lines ${from}–${shown} of ${total}${origin})`;
  const notes: string[] = [];
  if (shown < last) {
    const nextEnd = Math.min(last, shown + MAX_READ_LINES);
    notes.push(`[truncated: the output is capped at ${MAX_READ_LINES} lines or ${MAX_READ_CHARS} characters; ask for lines ${shown + 1}–${nextEnd} next (start_line ${shown + 1}, end_line ${nextEnd}).]`);
  }
  return [header, ...out, ...notes].join('\n');
}

/**
 * `before` with `oldText` replaced by `newText`: once (it must occur exactly once) or everywhere.
 * When the file uses CRLF line ends and the model wrote LF, both texts are taken with CRLF.
 */
export function replaceExact(relative: string, before: string, oldText: string, newText: string, replaceAll: boolean): string {
  let find = oldText;
  let put = newText;
  if (!before.includes(find) && before.includes('\r\n') && !oldText.includes('\r')) {
    find = oldText.replace(/\n/g, '\r\n');
    put = newText.replace(/\r?\n/g, '\r\n');
  }
  const positions: number[] = [];
  for (let at = before.indexOf(find); at >= 0; at = before.indexOf(find, at + find.length)) positions.push(at);
  if (positions.length === 0) {
    throw new ArborError(
      'EDIT_NOT_FOUND',
      `old_text does not occur in "${relative}". Read the file again and copy the text exactly (whitespace and indentation included, without line numbers).`,
      { path: relative },
    );
  }
  if (positions.length > 1 && !replaceAll) {
    const lines = positions.slice(0, 10).map((at) => lineOf(before, at));
    throw new ArborError(
      'EDIT_AMBIGUOUS',
      `old_text occurs ${positions.length} times in "${relative}" (lines ${lines.join(', ')}${positions.length > 10 ? ', …' : ''}). Include more surrounding lines to pick one, or set replace_all to change every one.`,
      { path: relative, occurrences: positions.length, lines },
    );
  }
  return replaceAll ? before.split(find).join(put) : before.slice(0, positions[0]) + put + before.slice(positions[0] + find.length);
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** The unified diff a human approves: the whole change, headers included. */
export function unifiedDiff(relative: string, before: string | null, after: string): string {
  return createTwoFilesPatch(before === null ? '/dev/null' : `a/${relative}`, `b/${relative}`, before ?? '', after, undefined, undefined, { context: 3 });
}

/**
 * Asks for approval with the diff, then writes only if the file still holds what the diff was
 * made from (EDIT_STALE otherwise). The original content is recorded in the agent's change set
 * before the write; a write that fails takes its fresh record back; a write that succeeded
 * records what it left, so Undo can tell a later change by someone else.
 *
 * The subject approved is `file.relative`, the real location the path led to when it was
 * resolved; the port's write goes to exactly that location and re-checks it right then, after
 * the prompt: a link swapped in meanwhile makes the write fail (PATH_OUTSIDE_WORKSPACE), never
 * land elsewhere. A denial is the same structured APPROVAL_DENIED as every other tool's.
 * Before all that the write guard (src/core/scopes) refuses a path outside the agent's scope and
 * asks about a file another live agent holds; the write runs in the file's queue, one at a time.
 */
async function applyWithApproval(ctx: RuntimeToolContext, workspace: WorkspacePort, file: WorkspacePath, before: string | null, after: string): Promise<ToolResult> {
  const created = before === null;
  // The write guard first: a path outside the scope is refused at once, another agent's file is asked about (or refused) before the approval.
  const guard = ctx.runtime.writes.guard;
  guard.checkScope(ctx.agent, file);
  const attempt = { agent: ctx.agent, file, before, after, signal: ctx.signal };
  const consented = await guard.consentBefore(attempt);
  const approval = await ctx.approvals.request({
    agent: ctx.agent,
    isSubagent: ctx.agent.kind !== 'root',
    policy: ctx.policy,
    action: 'edit-file',
    subject: file.relative,
    detail: unifiedDiff(file.relative, before, after),
    signal: ctx.signal,
    log: ctx.agent.log,
    toolCallId: ctx.toolCallId,
  });
  if (approval.decision === 'deny') return deniedResult('edit-file', file.relative, approval);
  ctx.signal.throwIfAborted();
  await guard.apply(attempt, consented, () =>
    // A run in its own folder: that folder's diff against its base is the record of its changes.
    ctx.agent.run.workspace ? workspace.writeText(file, after, { expected: before }) : ctx.runtime.changes.writeRecorded(ctx.agent.id, workspace, file, before, after),
  );
  return writtenResult(file, created, after);
}

function writtenResult(file: WorkspacePath, created: boolean, after: string): ToolResult {
  const lines = after === '' ? 0 : after.split('\n').length - (after.endsWith('\n') ? 1 : 0);
  return { content: JSON.stringify({ status: created ? 'created' : 'edited', path: file.relative, lines }) };
}

