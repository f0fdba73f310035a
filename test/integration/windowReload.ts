// Two-phase integration runs: a suite can ask for a real window reload and check, in the
// extension host the reload starts, what survived it. The runner passes a folder in
// ARBOR_TEST_PHASE_DIR that outlives the reload. The mocha entry (index.ts) reads it to know
// which phase this extension host runs: 'before' runs every suite, then reloads the window if
// a suite asked for it; 'after' runs only the suites that asked, once, and never reloads again.
// Suites are separate bundles, so everything shared goes through files, not module state.
//
// A suite that runs after the reload may in turn ask for a crash: once the 'after' suites have
// finished, that extension host kills itself with SIGKILL (no deactivate, no last write), the
// workbench starts a new one as it does after any crash, and that host runs the 'crashed' phase:
// only the suites that asked, once.
import * as fs from 'fs';
import * as path from 'path';

const dir = process.env.ARBOR_TEST_PHASE_DIR ?? '';
const PHASE_FILE = 'phase.json';
const REQUEST_FILE = 'reload-request.json';
const CRASH_REQUEST_FILE = 'crash-request.json';

export type Phase = 'before' | 'after' | 'crashed';

interface ReloadRequest {
  /** Suite bundle file names (e.g. history.test.js) to run again after the reload. */
  suites: string[];
  /** What each suite recorded for its checks after the reload, by the suite's own key. */
  state: Record<string, unknown>;
}

function read<T>(file: string): T | undefined {
  const full = path.join(dir, file);
  return dir && fs.existsSync(full) ? (JSON.parse(fs.readFileSync(full, 'utf8')) as T) : undefined;
}

function write(file: string, value: unknown): void {
  fs.writeFileSync(path.join(dir, file), JSON.stringify(value, null, 2));
}

export const windowReload = {
  /** Desktop runs keep no folder across a reload, so suites skip what needs one. */
  available: dir !== '',
  unavailableReason: dir ? '' : 'no folder outlives a window reload in this run (ARBOR_TEST_PHASE_DIR is unset)',

  /** 'after' in the extension host that a requested reload started, 'crashed' in the one a requested crash started. */
  phase(): Phase {
    const phase = read<{ phase: string }>(PHASE_FILE)?.phase;
    return phase === 'after' || phase === 'crashed' ? phase : 'before';
  },

  /**
   * Asks for a window reload once every suite of this run has finished; `suiteFile` (the
   * suite's bundle, `path.basename(__filename)`) then runs again with `state` under `key`.
   */
  request(suiteFile: string, key: string, state: unknown): void {
    if (!dir) throw new Error(`A window reload cannot be requested: ${this.unavailableReason}.`);
    if (this.phase() === 'after') throw new Error('A window reload was requested after the reload: a run reloads once.');
    const request = read<ReloadRequest>(REQUEST_FILE) ?? { suites: [], state: {} };
    if (!request.suites.includes(suiteFile)) request.suites.push(suiteFile);
    request.state[key] = state;
    write(REQUEST_FILE, request);
  },

  /** What a suite recorded under `key` before the reload (or, with requestCrash, before the crash). */
  state<T>(key: string): T | undefined {
    return (read<ReloadRequest>(CRASH_REQUEST_FILE)?.state[key] ?? read<ReloadRequest>(REQUEST_FILE)?.state[key]) as T | undefined;
  },

  /**
   * After the reload: asks for the extension host to be killed (SIGKILL) once every suite of
   * this phase has finished; `suiteFile` then runs again in the host the workbench starts next,
   * with `state` under `key`.
   */
  requestCrash(suiteFile: string, key: string, state: unknown): void {
    if (this.phase() !== 'after') throw new Error('A crash can be requested only after the window reload.');
    const request = read<ReloadRequest>(CRASH_REQUEST_FILE) ?? { suites: [], state: {} };
    if (!request.suites.includes(suiteFile)) request.suites.push(suiteFile);
    request.state[key] = state;
    write(CRASH_REQUEST_FILE, request);
  },

  /** For the mocha entry: the suites to run after the crash, or none when nobody asked. */
  crashRequestedSuites(): string[] {
    return read<ReloadRequest>(CRASH_REQUEST_FILE)?.suites ?? [];
  },

  /** For the mocha entry: the next extension host runs the 'crashed' phase. */
  markCrashing(): void {
    write(PHASE_FILE, { phase: 'crashed' });
  },

  /** For the mocha entry: the suites to run after the reload, or none when nobody asked. */
  requestedSuites(): string[] {
    return read<ReloadRequest>(REQUEST_FILE)?.suites ?? [];
  },

  /** For the mocha entry: the next extension host runs the 'after' phase. */
  markReloading(): void {
    write(PHASE_FILE, { phase: 'after' });
  },
};
