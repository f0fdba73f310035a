/**
 * The tools that do a developer's work on the workspace, each a thin description over the
 * workspace port: the port confines paths and reads the editor's buffers, the approval seam
 * decides every write, the change sets remember what each agent changed. Reading, listing,
 * searching and diagnostics are read-only (offered in plan mode, never asked about); editing
 * and creating ask an interactive root and are denied to unattended runs and subagents.
 * What each tool does when called (workspaceToolRuns.ts, with the diff library) loads on the
 * first call of any of them; what the model sees of them (names, descriptions, schemas) is here.
 */
import { workspaceToolRunsPart } from '../parts';
import type { RuntimeTool } from './context';
import { defineTool } from './defineTool';
import {
  MAX_READ_LINES,
  MAX_READ_CHARS,
  DEFAULT_LIST_LIMIT,
  DEFAULT_SEARCH_LIMIT,
  readFileArgsSchema,
  listFilesArgsSchema,
  searchTextArgsSchema,
  editFileArgsSchema,
  createFileArgsSchema,
  getDiagnosticsArgsSchema,
} from './workspaceToolArgs';

export {
  MAX_READ_LINES,
  MAX_READ_CHARS,
  MAX_LINE_CHARS,
  DEFAULT_LIST_LIMIT,
  MAX_LIST_LIMIT,
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  MAX_DIAGNOSTICS,
  readFileArgsSchema,
  listFilesArgsSchema,
  searchTextArgsSchema,
  editFileArgsSchema,
  createFileArgsSchema,
  getDiagnosticsArgsSchema,
} from './workspaceToolArgs';

export const readFileTool = defineTool({
  name: 'read_file',
  description:
    'Read a text file of the workspace, with numbered lines. Shows the editor\'s unsaved changes when the file is open. ' +
    `At most ${MAX_READ_LINES} lines or ${MAX_READ_CHARS} characters per call: a longer file is cut and the result says which lines to ask for next. Binary files are refused.`,
  schema: readFileArgsSchema,
  readOnly: true,
  run: (args, ctx) => workspaceToolRunsPart().readFile(args, ctx),
});

export const listFilesTool = defineTool({
  name: 'list_files',
  description:
    'List the workspace\'s files matching a glob, one workspace-relative path a line. Files the user excluded (files.exclude, search.exclude) and git-ignored files are left out. ' +
    `At most ${DEFAULT_LIST_LIMIT} paths by default; the result says when there are more.`,
  schema: listFilesArgsSchema,
  readOnly: true,
  run: (args, ctx) => workspaceToolRunsPart().listFiles(args, ctx),
});

export const searchTextTool = defineTool({
  name: 'search_text',
  description:
    'Search the workspace\'s text files for a string or a regular expression; results are "path:line:text", one a line. ' +
    `Excluded and git-ignored files are skipped. At most ${DEFAULT_SEARCH_LIMIT} matches by default; narrow with glob when it is cut.`,
  schema: searchTextArgsSchema,
  readOnly: true,
  run: (args, ctx) => workspaceToolRunsPart().searchText(args, ctx),
});

export const editFileTool = defineTool({
  name: 'edit_file',
  description:
    'Change a file by replacing an exact piece of its text (old_text, which must occur exactly once unless replace_all is true) with new_text. ' +
    'Read the file first and copy old_text exactly, with enough surrounding lines to make it unique. The user approves each edit after seeing its diff; ' +
    'when the file changed since you read it, or approval is denied, the result says so and nothing is written.',
  schema: editFileArgsSchema,
  readOnly: false,
  run: (args, ctx) => workspaceToolRunsPart().editFile(args, ctx),
});

export const createFileTool = defineTool({
  name: 'create_file',
  description:
    'Create a new text file with the given content (missing folders are created). Refused when the file exists: use edit_file for that. ' +
    'The user approves each new file after seeing its content.',
  schema: createFileArgsSchema,
  readOnly: false,
  run: (args, ctx) => workspaceToolRunsPart().createFile(args, ctx),
});

export const getDiagnosticsTool = defineTool({
  name: 'get_diagnostics',
  description:
    'The errors and warnings the editor reports (its Problems panel), for one file or the whole workspace, as "path:line:column: severity: message". ' +
    'Use it after an edit to check that nothing broke.',
  schema: getDiagnosticsArgsSchema,
  readOnly: true,
  run: (args, ctx) => workspaceToolRunsPart().getDiagnostics(args, ctx),
});

/** Every workspace tool, read-only ones first. */
export const workspaceTools: readonly RuntimeTool[] = [readFileTool, listFilesTool, searchTextTool, getDiagnosticsTool, editFileTool, createFileTool];
