/**
 * The one poll the unit tests share, for state that announces no event (a file on disk, a process
 * gone, a counter of a fake): it checks `predicate` on every turn of the event loop and fails with
 * `what` after `ms`. The deadline is a bound on a hang, never a timing claim. Where the state has
 * an event (a runtime event, an agent's whenIdle), wait on that instead (see events.ts).
 */
export async function until(predicate: () => boolean, what: string, ms = 2000): Promise<void> {
  const t0 = Date.now();
  while (!predicate()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise<void>((resolve) => setTimeout(resolve, 1));
  }
}
