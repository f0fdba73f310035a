// Loaded by the test runner of a mutation run (stryker.config.mjs, mochaOptions.require), after
// tsx and before any test file. The core builds each zod schema once, on first use
// (src/core/once.ts); in a mutation run that would build it in whichever test came first, with
// whichever planted bug was active then, so a bug planted inside a schema would be seen by no
// test that covers it, and per-test coverage would credit only that first test. Here `once` is
// replaced, for this process only, by one that builds again whenever the test or the planted
// bug (Stryker's global) has changed, and once within one test. The product's module is not
// touched: its file is resolved from the working directory (the sandbox) and this module stands
// in for it in the require cache before anything loads it.
'use strict';
const Module = require('node:module');
const path = require('node:path');

/** Which test runs and which planted bug is active; undefined outside a mutation run. */
function currentRun() {
  const stryker = globalThis.__stryker__;
  return stryker && `${stryker.activeMutant ?? ''}|${stryker.currentTestId ?? ''}`;
}

/** `once` of src/core/once.ts, built again for each test and each planted bug. */
function oncePerMutant(build) {
  let built;
  let builtIn;
  return () => {
    const run = currentRun();
    if (built === undefined || run !== builtIn) {
      built = { value: build() };
      builtIn = run;
    }
    return built.value;
  };
}

const ONCE_MODULE = path.resolve('src/core/once.ts');
if (!(ONCE_MODULE in require.cache)) {
  const standIn = new Module(ONCE_MODULE, module);
  standIn.filename = ONCE_MODULE;
  standIn.paths = Module._nodeModulePaths(path.dirname(ONCE_MODULE));
  standIn.exports = { once: oncePerMutant };
  standIn.loaded = true;
  require.cache[ONCE_MODULE] = standIn;
}

module.exports = { oncePerMutant, ONCE_MODULE };
