import * as path from 'node:path';
import { errnoOf } from '../errors';
import { exists, readdir, runAsync, runSync, type Steps } from './fileSteps';
import { SESSION_FILE_EXTENSION } from './sessionFileName';

/**
 * The names of the session files known to be in a store's folder: read once, then every file
 * created, reopened or listed there, so that creating a session costs no look at the disk.
 *
 * Invariants:
 * - The folder is read once in the background when the store is made; a create that comes
 *   first reads it then, synchronously (the same steps), since `create` returns at once.
 * - A name created before the folder was read is kept and added once it is.
 * - A folder that cannot be read (other than missing) is not taken as empty: the one name asked
 *   about is looked up on its own, and the folder is read again at the next question.
 */
export class KnownSessionFiles {
  private known: Set<string> | undefined;
  /** Names created before the folder was first read. */
  private later: string[] = [];
  private reading = false;

  constructor(private readonly root: string) {}

  /** Reads the folder's names in the background, so that `has` answers without a look at the disk. */
  readSoon(): void {
    if (this.known || this.reading) return;
    this.reading = true;
    runAsync(sessionFileNames(this.root)).then(
      (names) => this.saw(names ?? []),
      () => (this.reading = false), // read again at the next question
    );
  }

  /** Whether a session file of this name is in the folder, as far as this store knows. */
  has(name: string): boolean {
    if (this.known) return this.known.has(name);
    // A session created before the background read finished: read the folder once, now.
    try {
      this.saw(runSync(sessionFileNames(this.root)) ?? []);
    } catch {
      // The folder cannot be listed now: look for this one name instead, and list it next time.
      return runSync(exists(path.join(this.root, name)));
    }
    return this.known!.has(name);
  }

  /** Session files found in the folder. */
  saw(names: readonly string[]): void {
    if (!this.known) {
      this.known = new Set(this.later);
      this.later = [];
    }
    for (const name of names) this.known.add(name);
  }

  /** A session file this store creates. */
  add(name: string): void {
    if (this.known) this.known.add(name);
    else this.later.push(name);
  }
}

/** The names of the session files in `root`; undefined when the folder does not exist (yet). */
export function* sessionFileNames(root: string): Steps<string[] | undefined> {
  try {
    return (yield* readdir(root)).filter((n) => n.endsWith(SESSION_FILE_EXTENSION));
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return undefined;
    throw e;
  }
}
