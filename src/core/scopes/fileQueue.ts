/**
 * Writes to one file, one at a time, in the order they arrive. Each job runs after the one
 * before it on the same key has settled (its failure is its own caller's), so two writes that
 * race never interleave: the second is checked (`expected` content) against the file as the
 * first left it. Jobs on other keys run side by side. Nothing waits on a human in here unless a
 * job itself asks one, and then only writes to that same file wait behind it.
 */
export class FileQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, job: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const next = previous
      // The previous write's failure is its caller's: this one runs after it all the same.
      .catch(() => undefined)
      .then(job);
    this.tails.set(key, next);
    // `next` is the caller's, with its failure; this only drops a finished queue.
    void next
      .finally(() => {
        if (this.tails.get(key) === next) this.tails.delete(key);
      })
      // The failure is the caller's (it holds `next`); this chain only tidies up.
      .catch(() => undefined);
    return next;
  }

  /** Whether a write to this file is queued or running. */
  busy(key: string): boolean {
    return this.tails.has(key);
  }
}
