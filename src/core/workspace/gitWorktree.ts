/**
 * An agent run isolated in its own `git worktree`: a new branch checked out from the user's
 * HEAD into a folder outside the user's repository, so agents working in parallel on one
 * repository cannot trample each other or the user's files.
 *
 * Invariants:
 * - the user's working tree is never written before `keepWorktree`, and `keepWorktree` either
 *   applies the whole change or nothing (it checks the patch first: WORKTREE_CONFLICT);
 * - the changes of a worktree are always measured against the commit it started from (`base`),
 *   committed and uncommitted alike, untracked files included;
 * - every git failure is an ArborError that says what to do: GIT_MISSING, NOT_A_GIT_REPOSITORY,
 *   GIT_FAILED.
 */
import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ArborError, errnoOf, isArborError } from '../errors';

export interface GitWorktree {
  /** The top of the user's repository. */
  readonly repo: string;
  /** The worktree's top folder. */
  readonly root: string;
  /** The folder the agent works in: the worktree's copy of the user's workspace folder. */
  readonly folder: string;
  readonly branch: string;
  /** The commit the worktree started from. */
  readonly base: string;
}

export type WorktreeChangeKind = 'added' | 'modified' | 'deleted';

export interface WorktreeChange {
  /** Relative to the worktree's workspace folder, with forward slashes. */
  readonly path: string;
  readonly kind: WorktreeChangeKind;
}

const MAX_GIT_OUTPUT = 64 * 1024 * 1024;

function git(cwd: string, args: string[], input?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile('git', ['-C', cwd, ...args], { maxBuffer: MAX_GIT_OUTPUT, encoding: 'utf8' }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      if (errnoOf(err) === 'ENOENT') {
        return reject(new ArborError('GIT_MISSING', 'Git is not installed or not on the PATH, so an agent cannot run in a worktree. Install git and try again.'));
      }
      reject(new ArborError('GIT_FAILED', `git ${args[0]} failed: ${(stderr || err.message).trim()}`, { args }));
    });
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** A branch-safe slug of an agent's label. */
function slug(label: string): string {
  return (
    label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'agent'
  );
}

/**
 * Checks out the user's HEAD on a new branch `arbor/<label>-<id>` in `<storage>/<id>`. The
 * workspace folder may be a subfolder of its repository: the agent then works in the same
 * subfolder of the worktree.
 */
export async function createWorktree(options: { workspaceFolder: string; storage: string; label: string; id: string }): Promise<GitWorktree> {
  let repo: string;
  let prefix: string;
  try {
    repo = (await git(options.workspaceFolder, ['rev-parse', '--show-toplevel'])).trim();
    prefix = (await git(options.workspaceFolder, ['rev-parse', '--show-prefix'])).trim();
  } catch (err) {
    if (isArborError(err, 'GIT_FAILED')) {
      throw new ArborError('NOT_A_GIT_REPOSITORY', `${options.workspaceFolder} is not inside a git repository, so an agent cannot run in a worktree there. Run "git init" and commit first, or run the agent without a worktree.`);
    }
    throw err;
  }
  let base: string;
  try {
    base = (await git(repo, ['rev-parse', '--verify', 'HEAD^{commit}'])).trim();
  } catch {
    throw new ArborError('NOT_A_GIT_REPOSITORY', `The repository at ${repo} has no commit yet, so there is nothing to start a worktree from. Commit first.`);
  }
  const id = options.id.replace(/[^A-Za-z0-9_-]/g, '');
  const branch = `arbor/${slug(options.label)}-${id.slice(0, 12)}`;
  const root = path.join(options.storage, id);
  await mkdir(options.storage, { recursive: true });
  await git(repo, ['worktree', 'add', '-b', branch, root, base]);
  return { repo, root, folder: prefix ? path.join(root, prefix) : root, branch, base };
}

/** The folder of the worktree's workspace, relative to its top, as git pathspec (`.` for the top). */
function scope(worktree: GitWorktree): string {
  return path.relative(worktree.root, worktree.folder).split(path.sep).join('/') || '.';
}

/**
 * Everything the worktree holds that its base does not, as a binary patch with paths relative to
 * the repository's top. It stages in the worktree's own index, which only the agent uses.
 */
async function patchOf(worktree: GitWorktree): Promise<string> {
  await git(worktree.root, ['add', '-A', '--', scope(worktree)]);
  return git(worktree.root, ['diff', '--cached', '--binary', '--no-renames', worktree.base, '--', scope(worktree)]);
}

/** The files the worktree changed against its base, uncommitted and untracked included. */
export async function worktreeChanges(worktree: GitWorktree): Promise<WorktreeChange[]> {
  await git(worktree.root, ['add', '-A', '--', scope(worktree)]);
  const out = await git(worktree.root, ['diff', '--cached', '--name-status', '--no-renames', '-z', worktree.base, '--', scope(worktree)]);
  const fields = out.split('\0').filter((f) => f !== '');
  const changes: WorktreeChange[] = [];
  const prefix = scope(worktree) === '.' ? '' : `${scope(worktree)}/`;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const status = fields[i];
    const file = fields[i + 1];
    const kind: WorktreeChangeKind = status.startsWith('A') ? 'added' : status.startsWith('D') ? 'deleted' : 'modified';
    changes.push({ path: file.startsWith(prefix) ? file.slice(prefix.length) : file, kind });
  }
  return changes;
}

/** A file's content at the worktree's base; undefined when it did not exist there. */
export async function baseContent(worktree: GitWorktree, relativePath: string): Promise<string | undefined> {
  const prefix = scope(worktree) === '.' ? '' : `${scope(worktree)}/`;
  try {
    return await git(worktree.repo, ['show', `${worktree.base}:${prefix}${relativePath}`]);
  } catch (err) {
    if (isArborError(err, 'GIT_FAILED')) return undefined;
    throw err;
  }
}

/**
 * Applies the worktree's changes to the user's working tree (not to their index), all or
 * nothing: when a file changed on both sides so the patch no longer fits, nothing is written
 * and WORKTREE_CONFLICT names the files. Returns the files it changed.
 */
export async function keepWorktree(worktree: GitWorktree): Promise<WorktreeChange[]> {
  const changes = await worktreeChanges(worktree);
  if (changes.length === 0) return [];
  const patch = await patchOf(worktree);
  try {
    await git(worktree.repo, ['apply', '--check', '--binary', '-'], patch);
  } catch (err) {
    if (!isArborError(err, 'GIT_FAILED')) throw err;
    throw new ArborError(
      'WORKTREE_CONFLICT',
      `The agent's changes no longer fit your files, so nothing was applied: ${err.message.replace(/^git apply failed: /, '')}. ` +
        `Review the agent's changes and merge the branch ${worktree.branch} yourself, or Discard them.`,
      { branch: worktree.branch },
    );
  }
  await git(worktree.repo, ['apply', '--binary', '-'], patch);
  return changes;
}

/** Removes the worktree's folder and its branch; the user's tree is untouched. */
export async function discardWorktree(worktree: GitWorktree): Promise<void> {
  await git(worktree.repo, ['worktree', 'remove', '--force', worktree.root]);
  await git(worktree.repo, ['branch', '-D', worktree.branch]);
}
