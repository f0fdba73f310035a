import type { ModelRequest } from '../../src/core/models';
import type { ModelScript } from '../../src/core/models/scriptedModel';
import { Runtime } from '../../src/core/runtime';
import type { RuntimeOptions } from '../../src/core/runtimeOptions';
import { JsonlSessionStore } from '../../src/core/sessions';
import { recordingModel } from './runtimeFixture';
import { makeTempDir } from './sessionFixtures';

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

/**
 * A sessions folder of its own for each test (`folder.dir`), removed after it once the windows
 * the test opened (`folder.windows`) are closed.
 */
export function sessionsFolderPerTest(prefix: string): { readonly dir: string; windows: ReturnType<typeof windowsClosedAfterEach> } {
  // Registered first, so the windows close before their folder goes.
  const windows = windowsClosedAfterEach();
  let made: { dir: string; cleanup: () => void } | undefined;
  beforeEach(() => void (made = makeTempDir(prefix)));
  afterEach(() => {
    made?.cleanup();
    made = undefined;
  });
  return {
    windows,
    get dir(): string {
      if (!made) throw new Error('the sessions folder exists only while a test runs');
      return made.dir;
    },
  };
}

/**
 * A window on the sessions folder `dir` as the restore tests open one: a store that writes at
 * once, the scripted `script` (its calls recorded), live records a moment after each change, ids
 * made of the label, the process, the time and a counter, and `options` for the runtime on top.
 */
export function openTestWindow(dir: string, script: ModelScript, options: Partial<RuntimeOptions> = {}): TestWindow & { calls: ModelRequest[] } {
  const store = new JsonlSessionStore(dir, { flushDelayMs: 1 });
  const { model, calls } = recordingModel(script);
  let n = 0;
  const runtime = new Runtime({
    model,
    sessions: store,
    liveRecordsFolder: dir,
    liveRecordDelayMs: 5,
    newId: (label) => `${label.toLowerCase()}-${process.pid}-${Date.now().toString(36)}-${++n}`,
    ...options,
  });
  return { store, runtime, calls };
}
