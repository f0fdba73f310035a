import type { Runtime } from '../../src/core/runtime';
import type { JsonlSessionStore } from '../../src/core/sessions';

/** One window on a sessions folder, as the restore tests open them: its runtime and its store. */
export interface TestWindow {
  runtime: Runtime;
  store: JsonlSessionStore;
}

/**
 * The window goes away as the editor's deactivation does it (runtimeHost.ts): the runtime shuts
 * down (the live-state records are written first, synchronously), and every log is written and
 * closed at once, before the aborted turns record their ends.
 */
export async function closeWindow(w: TestWindow): Promise<void> {
  const shutdown = w.runtime.dispose();
  w.store.closeAllSync();
  await shutdown;
}

/** The windows a test opened, each closed after it (a failed assertion leaks none into the next test). */
export function windowsClosedAfterEach(): { open: <T extends TestWindow>(w: T) => T; forget: () => void } {
  const windows: TestWindow[] = [];
  afterEach(async () => {
    for (const w of windows.splice(0)) await closeWindow(w).catch(() => undefined);
  });
  return { open: (w) => (windows.push(w), w), forget: () => void windows.splice(0) };
}
