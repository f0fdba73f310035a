import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { Agent } from '../../../src/core/agents/agent';
import { DEFAULT_RUNAWAY, RunawayDetector, runawaySettingsSchema, type BudgetEvent, type RunawaySettingsInput } from '../../../src/core/budgets';
import type { ModelScript } from '../../../src/core/models/scriptedModel';
import { sameArgumentTexts } from '../../../src/core/budgets/runaway';
import { Runtime } from '../../../src/core/runtime';
import { MIN_WAIT_SECONDS } from '../../../src/core/tools';
import { loadTourScript, workerLabel } from '../../support/loadTour';
import { reasons, recordingModel, toolResults, until } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { canonicalArguments, withKeysIn } from '../../support/jsonKeys';
import { whenState } from '../../support/events';

const call = (name: string, args: unknown, id = 'c') => ({ id, name, arguments: JSON.stringify(args) });

function detector(settings: RunawaySettingsInput, readOnly: readonly string[] = ['read_file', 'list_agents']) {
  const parsed = runawaySettingsSchema().parse(settings);
  return new RunawayDetector(
    () => parsed,
    (name) => readOnly.includes(name),
  );
}

describe('runaway detection', () => {
  it('warns when the same call with the same arguments comes N times in a row', () => {
    const d = detector({ sameCallRepeats: 3, stepsWithoutChange: 0 });
    assert.equal(d.toolCalled(call('read_file', { path: 'a', limit: 5 })), undefined);
    d.toolFinished('read_file', false);
    assert.equal(d.toolCalled(call('read_file', { limit: 5, path: 'a' })), undefined, 'the same arguments in another key order');
    d.toolFinished('read_file', false);
    assert.match(d.toolCalled(call('read_file', { path: 'a', limit: 5 })) ?? '', /same call \(read_file with the same arguments\) 3 times in a row/);
  });

  it('another call in between starts the count again', () => {
    const d = detector({ sameCallRepeats: 3, stepsWithoutChange: 0 });
    d.toolCalled(call('read_file', { path: 'a' }));
    d.toolFinished('read_file', false);
    d.toolCalled(call('read_file', { path: 'a' }));
    d.toolFinished('read_file', false);
    d.toolCalled(call('read_file', { path: 'b' }));
    d.toolFinished('read_file', false);
    assert.equal(d.toolCalled(call('read_file', { path: 'a' })), undefined);
  });

  it('warns after M steps in a row whose tools changed nothing; a successful change resets the count', () => {
    const d = detector({ sameCallRepeats: 0, stepsWithoutChange: 2 });
    const step = (name: string, isError = false): string | undefined => {
      const warning = d.toolCalled(call(name, { n: Math.random() }));
      d.toolFinished(name, isError);
      return warning;
    };
    assert.equal(step('read_file'), undefined);
    assert.equal(step('read_file'), undefined);
    assert.match(step('read_file') ?? '', /2 model steps in a row without a tool that changed anything/);
    const fresh = detector({ sameCallRepeats: 0, stepsWithoutChange: 2 });
    const freshStep = (name: string, isError = false): string | undefined => {
      const warning = fresh.toolCalled(call(name, { n: Math.random() }));
      fresh.toolFinished(name, isError);
      return warning;
    };
    freshStep('read_file');
    freshStep('edit_file', true);
    assert.match(freshStep('read_file') ?? '', /2 model steps/, 'a change that failed changed nothing');
    freshStep('edit_file');
    assert.equal(freshStep('read_file'), undefined, 'a change that worked starts the count again');
  });

  it('a check-and-wait loop is a poll: no warning however long it goes on, while the same check with no wait between still warns', () => {
    const d = detector({ sameCallRepeats: 3, stepsWithoutChange: 3 }, ['list_agents', 'wait']);
    const warnings: (string | undefined)[] = [];
    for (let i = 0; i < 20; i++) {
      // One model step: check, then wait before the next check.
      warnings.push(d.toolCalled(call('list_agents', {})), d.toolCalled(call('wait', { seconds: 1.5 })));
      d.toolFinished('list_agents', false);
      d.toolFinished('wait', false);
    }
    for (let i = 0; i < 20; i++) {
      // The wait a step of its own: check, wait, check, ...
      warnings.push(d.toolCalled(call('list_agents', {})));
      d.toolFinished('list_agents', false);
      warnings.push(d.toolCalled(call('wait', { seconds: 1.5 })));
      d.toolFinished('wait', false);
    }
    assert.deepEqual(warnings.filter((w) => w !== undefined), []);
    const tight = detector({ sameCallRepeats: 3, stepsWithoutChange: 0 }, ['list_agents', 'wait']);
    const tightWarnings = Array.from({ length: 3 }, () => {
      const warning = tight.toolCalled(call('list_agents', {}));
      tight.toolFinished('list_agents', false);
      return warning;
    });
    assert.match(tightWarnings[2] ?? '', /same call \(list_agents with the same arguments\) 3 times in a row/);
  });

  it('only a wait that finished makes a step a poll: a failed wait changes nothing, and waiting again and again still repeats one call', () => {
    const d = detector({ sameCallRepeats: 0, stepsWithoutChange: 2 }, ['list_agents', 'wait']);
    const step = (waitFails: boolean): string | undefined => {
      const warning = d.toolCalled(call('list_agents', {}));
      d.toolCalled(call('wait', { seconds: -1 }));
      d.toolFinished('list_agents', false);
      d.toolFinished('wait', waitFails);
      return warning;
    };
    assert.equal(step(true), undefined);
    assert.equal(step(true), undefined);
    assert.match(step(true) ?? '', /2 model steps in a row without a tool that changed anything/);
    const waits = detector({ sameCallRepeats: 3, stepsWithoutChange: 0 }, ['wait']);
    const waited = Array.from({ length: 3 }, () => {
      const warning = waits.toolCalled(call('wait', { seconds: 5 }));
      waits.toolFinished('wait', false);
      return warning;
    });
    assert.match(waited[2] ?? '', /same call \(wait with the same arguments\) 3 times in a row/);
  });

  it('a reset (an answer without tools, a person speaking) clears both counts', () => {
    const d = detector({ sameCallRepeats: 2, stepsWithoutChange: 0 });
    d.toolCalled(call('read_file', { path: 'a' }));
    d.toolFinished('read_file', false);
    d.reset();
    assert.equal(d.toolCalled(call('read_file', { path: 'a' })), undefined);
  });
});

describe('runaway guards in a run', () => {
  const track = disposeAfterEach();
  const looping: ModelScript = {
    version: 1,
    agents: {
      main: {
        turns: [{ steps: [{ toolCalls: [{ name: 'list_agents', arguments: {} }] }], loop: true }, [{ text: 'going on' }]],
      },
    },
  };

  function guarded(script: ModelScript, runaway: RunawaySettingsInput) {
    const { model, calls } = recordingModel(script);
    const runtime = new Runtime({ model, runaway });
    const events: BudgetEvent[] = [];
    runtime.budgets.onEvent((e) => events.push(e));
    return { runtime, calls, events };
  }

  it('pauses the agent with the reason when the setting says so, and Resume lets it go on', async () => {
    const { runtime, calls, events } = guarded(looping, { sameCallRepeats: 4, pauseAgent: true });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => root.lastTurnEnd !== undefined, 'the turn to end');
    assert.equal(calls.length, 4, 'the fourth identical call is not run');
    assert.deepEqual(reasons(root), ['paused']);
    assert.equal(root.lastTurnEnd?.hold?.reason, 'runaway');
    assert.match(root.lastTurnEnd?.message ?? '', /runaway guard paused it: the same call \(list_agents with the same arguments\) 4 times in a row/);
    assert.match(root.run.budget.agentWarning(root.id) ?? '', /4 times in a row/);
    const found = events.find((e) => e.type === 'runaway');
    assert.ok(found && found.type === 'runaway' && found.hold?.reason === 'runaway' && found.agent === root);
    assert.equal(runtime.budgets.holdOf(root.run), undefined, 'only the agent is paused, not its run');

    runtime.budgets.resumeAgent(root);
    await whenState(runtime, () => root.lastTurnEnd?.finalText === 'going on', 'the agent to go on');
    assert.equal(root.run.budget.agentWarning(root.id), undefined);
  });

  it('only warns by default: the agent goes on and its warning stays until a person speaks to it', async () => {
    const { runtime, events } = guarded(
      {
        version: 1,
        agents: {
          main: {
            turns: [
              [
                ...Array.from({ length: 5 }, () => ({ toolCalls: [{ name: 'list_agents', arguments: {} }] })),
                { text: 'done' },
              ],
            ],
          },
        },
      },
      { sameCallRepeats: 3 },
    );
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await root.whenIdle();
    assert.deepEqual(reasons(root), ['completed']);
    assert.match(root.run.budget.agentWarning(root.id) ?? '', /3 times in a row/);
    assert.equal(events.filter((e) => e.type === 'runaway').length, 1, 'one warning, not one per call');
    runtime.sendFromUser(root, 'try something else');
    assert.equal(root.run.budget.agentWarning(root.id), undefined);
    await root.whenIdle();
  });

  /** A loop of one model step: `toolCalls`, again and again, until stopped. */
  const loopOf = (toolCalls: { name: string; arguments: Record<string, unknown> }[]): ModelScript => ({
    version: 1,
    agents: { main: { turns: [{ steps: [{ toolCalls }], loop: true }] } },
  });
  const checks = (agent: Agent): number => toolResults(agent).filter((r) => r.name === 'list_agents').length;

  it('a polling loop that waits between its checks runs past both guards without a warning, with the default guards', async () => {
    const { runtime, events } = guarded(loopOf([{ name: 'list_agents', arguments: {} }, { name: 'wait', arguments: { seconds: MIN_WAIT_SECONDS } }]), {});
    track(runtime);
    const root = runtime.startRoot({ prompt: 'watch', label: 'main', limits: { maxStepsPerTurn: 1_000 } });
    const past = Math.max(DEFAULT_RUNAWAY.sameCallRepeats, DEFAULT_RUNAWAY.stepsWithoutChange) + 2;
    const warned = (): string[] => events.flatMap((e) => (e.type === 'runaway' ? [`${e.agent.label}: ${e.reason}`] : []));
    await until(() => warned().length > 0 || checks(root) >= past, `${past} checks`, 30_000);
    assert.deepEqual(warned(), []);
    assert.equal(root.run.budget.agentWarning(root.id), undefined);
    assert.equal(root.status, 'running', 'the poll goes on');
  });

  it('the same loop without the wait warns with the default guards, as a tight repeated call', async () => {
    const { runtime, events } = guarded(loopOf([{ name: 'list_agents', arguments: {} }]), {});
    track(runtime);
    const root = runtime.startRoot({ prompt: 'watch', label: 'main' });
    await whenState(runtime.budgets, () => events.some((e) => e.type === 'runaway'), 'the runaway warning');
    assert.match(root.run.budget.agentWarning(root.id) ?? '', /same call \(list_agents with the same arguments\) 5 times in a row/);
  });

  it("the load tour's workers poll: none of them warns, with the default guards", async () => {
    const workers = 3;
    const { runtime, events } = guarded(loadTourScript(workers), {});
    track(runtime);
    const root = runtime.startRoot({ prompt: 'start the workers', label: 'Load', limits: { maxStepsPerTurn: 10_000 } });
    const past = Math.max(DEFAULT_RUNAWAY.sameCallRepeats, DEFAULT_RUNAWAY.stepsWithoutChange) + 2;
    const all = (): Agent[] => runtime.agents.childrenOf(root);
    const warned = (): string[] => events.flatMap((e) => (e.type === 'runaway' ? [`${e.agent.label}: ${e.reason}`] : []));
    await until(() => warned().length > 0 || (all().length === workers && all().every((w) => checks(w) >= past)), `every worker to check ${past} times`, 30_000);
    assert.deepEqual(warned(), []);
    assert.deepEqual(all().map((w) => w.label), Array.from({ length: workers }, (_, i) => workerLabel(i)));
    for (const worker of all()) assert.equal(worker.run.budget.agentWarning(worker.id), undefined, worker.label);
  });
});

describe('runaway defaults', () => {
  it('cost nothing at module load: loading the runaway module builds no schema and parses nothing', () => {
    // A fresh process, so that the module is really loaded here and not taken from the cache.
    const script = `
      let built = 0;
      globalThis.__zod_globalConfig = { postProcessor() { built++; } };
      const runaway = require(${JSON.stringify(path.resolve(__dirname, '../../../src/core/budgets/runaway.ts'))});
      const atLoad = built;
      const defaults = runaway.DEFAULT_RUNAWAY;
      process.stdout.write(JSON.stringify({ atLoad, defaults }));
    `;
    const run = spawnSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], { encoding: 'utf8', cwd: path.resolve(__dirname, '../../..') });
    assert.equal(run.status, 0, run.stderr);
    const { atLoad, defaults } = JSON.parse(run.stdout) as { atLoad: number; defaults: unknown };
    assert.equal(atLoad, 0, 'schemas built while the module loads');
    assert.deepEqual(defaults, { sameCallRepeats: 5, stepsWithoutChange: 40, pauseAgent: false });
  });

  it('are what the settings schema gives an empty setting', () => {
    assert.deepEqual(DEFAULT_RUNAWAY, runawaySettingsSchema().parse({}));
  });
});

describe('runaway detection: arguments compared by meaning', () => {
  // Texts of the same values in other key orders and spacings, and texts that are not JSON.
  const json = fc.jsonValue({ maxDepth: 3 });
  const spelled = fc.oneof(
    json.map((v) => JSON.stringify(v)),
    json.map((v) => JSON.stringify(v, null, 1)),
    json.map((v) => JSON.stringify(withKeysIn(v, (keys) => keys.reverse()))),
    fc.string({ maxLength: 12 }),
  );

  it('says two texts are the same exactly when their key-sorted serializations are equal', () => {
    fc.assert(
      fc.property(spelled, spelled, (a, b) => assert.equal(sameArgumentTexts(a, b), canonicalArguments(a) === canonicalArguments(b), `${a} | ${b}`)),
      { numRuns: 500 },
    );
    // And the same value spelled two ways, which random pairs rarely are.
    fc.assert(
      fc.property(json, (v) => assert.equal(sameArgumentTexts(JSON.stringify(v), JSON.stringify(withKeysIn(v, (keys) => keys.reverse()), null, 2)), true)),
      { numRuns: 200 },
    );
    assert.equal(sameArgumentTexts('{"a":-0}', '{"a":0}'), true, 'as their serializations are');
    assert.equal(sameArgumentTexts('{"a":1', '{"a":1}'), false);
    assert.equal(sameArgumentTexts('[1,2]', '{"0":1,"1":2}'), false);
    // A key "__proto__" is a key like any other (a generated case once found the oracle dropping it).
    assert.equal(sameArgumentTexts('{"a":{"__proto__":false},"b":1}', '{"b":1,"a":{"__proto__":false}}'), true);
    assert.equal(sameArgumentTexts('{"a":{"__proto__":false}}', '{"a":{}}'), false);
    assert.equal(canonicalArguments('{"b":{"__proto__":false},"a":1}'), '{"a":1,"b":{"__proto__":false}}');
  });
});
