/**
 * What a test makes and must end (a runtime, a session store, an agent, a process to kill) is
 * ended after the test whether it passed or failed, so a failed assertion never leaves a live
 * runtime running into the tests after it.
 *
 * Call it once at the top of a `describe`: its afterEach is then the first of that describe to
 * run, before any that removes the folders those objects write to, as an inline dispose at the
 * end of the test ran before them. `track(x)` returns `x`. Everything tracked in a test is ended
 * last-made first, each awaited; a failure is reported after the rest have been ended. An object
 * a test already disposed (its `isDisposed` or `disposed` is true) is skipped, so a test whose
 * point is dispose itself may still call it.
 */
export type Ending = { dispose(): unknown } | (() => unknown);

export function disposeAfterEach(): <T extends Ending>(thing: T) => T {
  const tracked: Ending[] = [];
  afterEach(async function () {
    const failures: unknown[] = [];
    for (const thing of tracked.splice(0).reverse()) {
      try {
        if (typeof thing === 'function') await thing();
        else if (!alreadyDisposed(thing)) await thing.dispose();
      } catch (err) {
        failures.push(err);
      }
    }
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) throw new AggregateError(failures, `${failures.length} disposals failed`);
  });
  return (thing) => {
    tracked.push(thing);
    return thing;
  };
}

function alreadyDisposed(thing: object): boolean {
  return ('isDisposed' in thing && thing.isDisposed === true) || ('disposed' in thing && thing.disposed === true);
}
