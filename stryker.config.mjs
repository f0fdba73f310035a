// Mutation testing of the core: Stryker plants small bugs in src/core and checks that the unit
// suite (mocha through tsx) catches each one. See "Mutation testing" in README.md.
// scripts/mutation.mjs names the file under test in ARBOR_MUTATION_SLUG so that each file keeps
// its own incremental record and report.
const slug = process.env.ARBOR_MUTATION_SLUG ?? 'core';
// `--tests=<globs>` of scripts/mutation.mjs narrows the unit tests run (comma-separated globs).
// It is done here rather than with Stryker's own --testFiles, which turns the "run every test"
// filter of a static mutant (code run when a module loads) into file names that match no test
// title, so every static mutant would survive without a test being run.
const tests = process.env.ARBOR_MUTATION_TESTS?.split(',').filter(Boolean);

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'mocha',
  mochaOptions: {
    spec: tests?.length ? tests : ['test/unit/**/*.test.ts'],
    // These tests read the source text (lengths, imports, the lines stryker.equivalent.json
    // names), which Stryker's instrumentation rewrites: they say nothing about a planted bug and
    // fail on the sandbox.
    ignore: ['test/unit/architecture/architecture.test.ts', 'test/unit/tooling/mutationEquivalents.test.ts'],
    // The core builds each schema once, on first use (src/core/once.ts); this stands in for that
    // module so that a schema is built again for each test and each planted bug.
    require: ['tsx/cjs', './scripts/mutation/buildPerMutant.cjs'],
  },
  // tsx never type-checks, so no file needs Stryker's `// @ts-nocheck` header; its default would
  // also prepend one to the demo workspace's JavaScript, which a test reads by line number.
  disableTypeChecks: false,
  // Only the tests that cover a mutant run against it: a run over one file takes minutes.
  coverageAnalysis: 'perTest',
  // A mutant in code that only runs while a module loads (a constant, a message template) would
  // need a fresh process loading every test file for each mutant: tens of seconds each here.
  // Such mutants are reported as Ignored and left out of the score; a mutant in code that also
  // runs inside a test (a function a test file calls at load) still runs against those tests.
  // `--static` of scripts/mutation.mjs runs them too, each against every test.
  ignoreStatic: process.env.ARBOR_MUTATION_STATIC !== '1',
  // once.ts is replaced in mutation runs (above): bugs planted in it would never run.
  mutate: ['src/core/**/*.ts', '!src/core/**/index.ts', '!src/core/once.ts'],
  // Results of earlier runs are reused for code and tests that did not change.
  incremental: true,
  incrementalFile: `reports/incremental/${slug}.json`,
  tempDirName: '.stryker-tmp',
  // Two cores are the norm here; one test process keeps the machine usable for the rest.
  concurrency: 1,
  timeoutMS: 10000,
  // The first run of the whole unit suite (with coverage) takes minutes on a busy two-core machine.
  dryRunTimeoutMinutes: 20,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${slug}.html` },
  jsonReporter: { fileName: `reports/mutation/${slug}.json` },
  // The core as a whole must catch 85% of planted bugs, and each file at least 80%.
  thresholds: { high: 90, low: 85, break: slug === 'core' ? 85 : 80 },
  // Mutants that cannot change behaviour, each with its reason, are listed in
  // stryker.equivalent.json (by file and line text, not in the source) and left out.
  ignorers: ['equivalent-mutants'],
  plugins: ['@stryker-mutator/mocha-runner', './scripts/mutation/equivalentMutants.mjs'],
};
