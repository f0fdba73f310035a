/**
 * What the workspace tools take: their caps and their arguments' schemas (each built on first
 * use), shared by the tools' descriptions (workspaceTools.ts) and what they do when called
 * (workspaceToolRuns.ts).
 */
import * as z from 'zod';
import { once } from '../once';

/** The most lines one read_file returns. */
export const MAX_READ_LINES = 2_000;
/** The most characters one read_file returns. */
export const MAX_READ_CHARS = 100_000;
/** A longer line is clipped in read_file's output. */
export const MAX_LINE_CHARS = 2_000;
export const DEFAULT_LIST_LIMIT = 500;
export const MAX_LIST_LIMIT = 2_000;
export const DEFAULT_SEARCH_LIMIT = 100;
export const MAX_SEARCH_LIMIT = 500;
export const MAX_DIAGNOSTICS = 200;

const pathArg = once(() => z.string().trim().min(1).max(1_000));

export const readFileArgsSchema = once(() => z.object({
  path: pathArg().describe('The file, relative to the workspace folder.'),
  start_line: z.number().int().min(1).optional().describe('First line to read (1-based). Default 1.'),
  end_line: z.number().int().min(1).optional().describe('Last line to read (inclusive). Default: as far as the size cap allows.'),
}));

export const listFilesArgsSchema = once(() => z.object({
  glob: z.string().trim().min(1).max(1_000).optional().describe('A glob relative to the workspace folder, such as "src/**/*.ts" or "*.md" (any depth). Default: every file.'),
  limit: z.number().int().min(1).max(MAX_LIST_LIMIT).optional().describe(`The most paths to return (default ${DEFAULT_LIST_LIMIT}).`),
}));

export const searchTextArgsSchema = once(() => z.object({
  query: z.string().min(1).max(1_000).describe('The text to find, or a regular expression when is_regex is true.'),
  is_regex: z.boolean().optional().describe('Treat query as a regular expression (default false).'),
  case_sensitive: z.boolean().optional().describe('Match case exactly (default false).'),
  glob: z.string().trim().min(1).max(1_000).optional().describe('Only search files matching this glob, such as "src/**/*.js".'),
  limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).optional().describe(`The most matches to return (default ${DEFAULT_SEARCH_LIMIT}).`),
}));

export const editFileArgsSchema = once(() => z.object({
  path: pathArg().describe('The file to change, relative to the workspace folder.'),
  old_text: z.string().min(1).describe('The exact text to replace, as read_file shows it (without the line numbers), including whitespace. It must occur exactly once unless replace_all is true.'),
  new_text: z.string().describe('The text to put in its place.'),
  replace_all: z.boolean().optional().describe('Replace every occurrence of old_text (default false).'),
}));

export const createFileArgsSchema = once(() => z.object({
  path: pathArg().describe('The new file, relative to the workspace folder; missing folders are created.'),
  content: z.string().describe('The whole content of the new file.'),
}));

export const getDiagnosticsArgsSchema = once(() => z.object({
  path: pathArg().optional().describe('Only this file. Default: the whole workspace.'),
}));
