import { ArborError, errnoOf, messageOf } from '../errors';
import { notFound } from './text';

/**
 * A file system failure as a typed error that names the workspace path and says what to do
 * next, so a model never gets a raw `ENOTDIR: not a directory, open '/…'` (which also leaks the
 * absolute location). Arbor's own errors pass through unchanged; a failure this does not know
 * keeps its errno in the details under TOOL_FAILED.
 */
export function fileSystemError(err: unknown, relative: string): ArborError {
  if (err instanceof ArborError) return err;
  const details = { path: relative };
  switch (errnoOf(err)) {
    case 'ENOENT':
      return notFound(relative);
    case 'ENOTDIR':
      return new ArborError('PATH_INVALID', `"${relative}" cannot be used: a part of it is a file, not a folder. Check the path with list_files.`, details);
    case 'ELOOP':
      return new ArborError('PATH_INVALID', `"${relative}" cannot be used: it leads through too many symbolic links (a loop of links). Use the real path of the file.`, details);
    case 'ENAMETOOLONG':
      return new ArborError('PATH_INVALID', `"${relative}" cannot be used: a name in it is longer than the file system allows (255 bytes on most). Use a shorter name.`, details);
    case 'EISDIR':
      return new ArborError('PATH_INVALID', `"${relative}" is a folder, not a file. Name a file inside it.`, details);
    case 'EEXIST':
      return new ArborError('FILE_EXISTS', `"${relative}" already exists; read it and use edit_file to change it.`, details);
    case 'EACCES':
    case 'EPERM':
      return new ArborError('FILE_ACCESS_DENIED', `The file system does not let Arbor use "${relative}" (permission denied). Ask the user to check its permissions, or use another path.`, details);
    default:
      return new ArborError('TOOL_FAILED', `"${relative}" could not be used: ${withoutPath(err)}.`, { ...details, errno: errnoOf(err) });
  }
}

/** The failure without the absolute path Node puts in its messages. */
function withoutPath(err: unknown): string {
  const text = messageOf(err);
  return text.replace(/,\s*\w+\s+'[^']*'(\s*->\s*'[^']*')?$/, '');
}
