import assert from 'node:assert/strict';
import { mergeSchedules, parseSchedules, type Schedule } from '../../../src/extension/schedules/scheduleConfig';
import { MAX_TIMER_MS, Scheduler, type LastOutcome, type RunTrigger, type ScheduleRecord } from '../../../src/extension/schedules/scheduler';

describe('schedule entries (arbor.schedules, .arbor/schedules.json)', () => {
  it('keeps the good entries and names each bad one with where it is and what is wrong', () => {
    const parsed = parseSchedules(
      [
        { name: 'nightly', cron: '0 2 * * *', prompt: 'Check the build.' },
        { name: 'typo', cron: '61 * * * *', prompt: 'x' },
        { name: 'empty', cron: '* * * * *', prompt: '  ' },
        { name: 'extra', cron: '* * * * *', prompt: 'x', interactionMode: 'interactive' },
        'not an object',
      ],
      'arbor.schedules',
    );
    assert.deepEqual(
      parsed.schedules.map((s) => [s.name, s.label, s.source, s.runMissed]),
      [['nightly', 'nightly', 'arbor.schedules[0]', false]],
    );
    assert.equal(parsed.problems.length, 4);
    assert.match(parsed.problems[0], /^arbor\.schedules\[1\] \("typo"\) is skipped: cron "61 \* \* \* \*" is not a cron expression/);
    assert.match(parsed.problems[1], /^arbor\.schedules\[2\] \("empty"\) is skipped: prompt: must not be blank/);
    assert.match(parsed.problems[2], /^arbor\.schedules\[3\] \("extra"\) is skipped: .*interactionMode/);
    assert.match(parsed.problems[3], /^arbor\.schedules\[4\] is skipped/);
  });

  it('reads a file written as { "schedules": [...] } and refuses one that is neither form', () => {
    assert.equal(parseSchedules({ schedules: [{ name: 'a', cron: '* * * * *', prompt: 'x' }] }, '.arbor/schedules.json').schedules.length, 1);
    assert.match(parseSchedules({ name: 'a' }, '.arbor/schedules.json').problems[0], /must be a list of schedules/);
  });

  it('skips a later entry that reuses a name', () => {
    const entry = { name: 'same', cron: '* * * * *', prompt: 'x' };
    const merged = mergeSchedules(parseSchedules([entry], 'arbor.schedules'), parseSchedules([entry], '.arbor/schedules.json'));
    assert.deepEqual(merged.schedules.map((s) => s.source), ['arbor.schedules[0]']);
    assert.deepEqual(merged.problems, ['.arbor/schedules.json[0] is skipped: arbor.schedules[0] already has the name "same".']);
  });
});

/** A scheduler on a hand-turned clock: timers fire only when the test moves time forward. */
function harness(start: number, saved: Record<string, ScheduleRecord> = {}) {
  let now = start;
  let timers: Array<{ at: number; callback: () => void; live: boolean }> = [];
  const state = { ...saved };
  const runs: Array<{ name: string; trigger: RunTrigger; finish(): void }> = [];
  const scheduler = new Scheduler({
    now: () => now,
    setTimer(callback, ms) {
      assert.ok(ms <= MAX_TIMER_MS, 'a timer never waits longer than the cap');
      const timer = { at: now + ms, callback, live: true };
      timers.push(timer);
      return { dispose: () => (timer.live = false) };
    },
    run(schedule: Schedule, trigger: RunTrigger) {
      return new Promise<LastOutcome>((resolve) =>
        runs.push({ name: schedule.name, trigger, finish: () => resolve({ at: new Date(now).toISOString(), reason: 'completed', summary: 'finished', blocked: [] }) }),
      );
    },
    state: { get: (name) => state[name] ?? {}, set: (name, record) => (state[name] = record) },
    log: () => undefined,
    changed: () => undefined,
  });
  /** Moves the clock forward, firing each timer that comes due, in time order. */
  const advance = (ms: number): void => {
    const end = now + ms;
    for (;;) {
      const next = timers.filter((t) => t.live && t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!next) break;
      now = Math.max(now, next.at);
      next.live = false;
      next.callback();
    }
    timers = timers.filter((t) => t.live);
    now = end;
  };
  return { scheduler, runs, state, advance, now: () => now };
}

const everyMinute = (runMissed = false): Schedule => parseSchedules([{ name: 'tick', cron: '* * * * *', prompt: 'go', runMissed }], 'test').schedules[0];
const T0 = Date.parse('2026-03-02T10:00:30Z');
const settle = () => new Promise((r) => setImmediate(r));

describe('Scheduler', () => {
  it('starts a run at each due time, and skips a due time while the previous run still works', async () => {
    const h = harness(T0);
    h.scheduler.setSchedules([everyMinute()]);
    assert.equal(h.runs.length, 0, 'nothing runs before its time');
    h.advance(30_000);
    assert.deepEqual(h.runs.map((r) => r.trigger), ['due']);
    assert.ok(h.scheduler.isRunning('tick'));
    h.advance(60_000);
    assert.equal(h.runs.length, 1, 'the next due time found it still running');
    h.runs[0].finish();
    await settle();
    assert.equal(h.scheduler.lastOutcome('tick')?.summary, 'finished');
    h.advance(60_000);
    assert.equal(h.runs.length, 2);
  });

  it('a paused schedule does not run on its own, Run Now still runs it, and resuming does not count the pause as missed', async () => {
    const h = harness(T0);
    h.scheduler.setSchedules([everyMinute(true)]);
    h.scheduler.pause('tick');
    assert.equal(h.scheduler.nextRun('tick'), undefined);
    h.advance(5 * 60_000);
    assert.equal(h.runs.length, 0);
    assert.ok(h.scheduler.runNow('tick'));
    assert.deepEqual(h.runs.map((r) => r.trigger), ['manual']);
    assert.ok(!h.scheduler.runNow('tick'), 'not twice at once');
    h.runs[0].finish();
    await settle();
    h.scheduler.resume('tick');
    assert.equal(h.runs.length, 1, 'resuming starts nothing');
    h.advance(60_000);
    assert.deepEqual(h.runs.map((r) => r.trigger), ['manual', 'due']);
  });

  it('at startup, a schedule that missed runs while the editor was closed runs once, only with runMissed', () => {
    const closedAt = new Date(T0 - 3 * 3_600_000).toISOString();
    const withMissed = harness(T0, { tick: { since: closedAt } });
    withMissed.scheduler.setSchedules([everyMinute(true)]);
    assert.deepEqual(withMissed.runs.map((r) => r.trigger), ['missed'], 'once, however many were missed');
    withMissed.scheduler.setSchedules([everyMinute(true)]);
    assert.equal(withMissed.runs.length, 1, 'a later change of the list is not a startup');

    const without = harness(T0, { tick: { since: closedAt } });
    without.scheduler.setSchedules([everyMinute(false)]);
    assert.equal(without.runs.length, 0);
    assert.equal(without.state.tick.since, new Date(T0).toISOString(), 'the missed runs are let go');

    const fresh = harness(T0);
    fresh.scheduler.setSchedules([everyMinute(true)]);
    assert.equal(fresh.runs.length, 0, 'a schedule seen for the first time missed nothing');
  });

  it('records a run that could not start as its last outcome', async () => {
    const h = harness(T0);
    const scheduler = new Scheduler({
      now: () => T0,
      setTimer: () => ({ dispose: () => undefined }),
      run: () => {
        throw new Error('Arbor has shut down');
      },
      state: { get: (name) => h.state[name] ?? {}, set: (name, record) => (h.state[name] = record) },
      log: () => undefined,
      changed: () => undefined,
    });
    scheduler.setSchedules([everyMinute()]);
    scheduler.runNow('tick');
    await settle();
    assert.deepEqual([scheduler.lastOutcome('tick')?.reason, scheduler.lastOutcome('tick')?.summary, scheduler.isRunning('tick')], ['failed-to-start', 'Arbor has shut down', false]);
  });
});
