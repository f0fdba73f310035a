// When schedules run. Pure (no 'vscode' import): the clock, the timers, the run itself and the
// saved state are passed in, so the rules below are tested without an editor.
//
// Invariants:
// - A schedule runs at most once at a time: a due time that comes while its previous run still
//   works is skipped (and logged), never queued.
// - `since` is the time up to which a schedule's due times are accounted for (run, skipped or
//   paused through). At startup a schedule whose next due time after `since` has passed missed a
//   run while the editor was closed: with `runMissed` it runs once, however many it missed.
// - A paused schedule never runs on its own; Run Now still runs it. Resuming accounts for the
//   time it was paused, so resuming never counts as a missed run.
// - Timers wait at most MAX_TIMER_MS and check the clock again, so a suspended machine or a
//   clock change is seen within that time.
import { messageOf } from '../../core';
import * as z from 'zod';
import { lazySchema } from '../../core';
import type { Schedule } from './scheduleConfig';

export const MAX_TIMER_MS = 60_000;

/** How a schedule's last run ended, as saved and shown. */
export const lastOutcomeSchema = lazySchema(() =>
  z.object({
    at: z.string(),
    /** completed, aborted, error, budget... or `failed-to-start`. */
    reason: z.string(),
    summary: z.string(),
    blocked: z.array(z.string()),
    sessionId: z.string().optional(),
  }),
);
export type LastOutcome = z.output<typeof lastOutcomeSchema>;

/** What is kept per schedule name across reloads (workspace state: data on disk, parsed on read). */
export const scheduleRecordSchema = lazySchema(() =>
  z.object({
    since: z.string().optional(),
    paused: z.boolean().optional(),
    lastOutcome: lastOutcomeSchema.optional(),
  }),
);
export type ScheduleRecord = z.output<typeof scheduleRecordSchema>;

export interface ScheduleStateStore {
  get(name: string): ScheduleRecord;
  set(name: string, record: ScheduleRecord): void;
}

export type RunTrigger = 'due' | 'missed' | 'manual';

export interface SchedulerDeps {
  now(): number;
  setTimer(callback: () => void, ms: number): { dispose(): void };
  /** Starts the run and resolves with its outcome once it has settled. */
  run(schedule: Schedule, trigger: RunTrigger): Promise<LastOutcome>;
  state: ScheduleStateStore;
  log(message: string): void;
  /** Something shown changed: a run started or ended, a schedule paused, the list replaced. */
  changed(): void;
}

export class Scheduler {
  private schedules: Schedule[] = [];
  private readonly timers = new Map<string, { dispose(): void }>();
  private readonly running = new Set<string>();
  private started = false;
  private disposed = false;

  constructor(private readonly deps: SchedulerDeps) {}

  /** Replaces the schedules (a setting or the file changed). The first call also runs missed ones. */
  setSchedules(schedules: readonly Schedule[]): void {
    if (this.disposed) return;
    const startup = !this.started;
    this.started = true;
    for (const timer of this.timers.values()) timer.dispose();
    this.timers.clear();
    this.schedules = [...schedules];
    const now = this.deps.now();
    for (const schedule of this.schedules) {
      const record = this.deps.state.get(schedule.name);
      if (record.since === undefined) this.deps.state.set(schedule.name, { ...record, since: iso(now) });
      else if (startup && schedule.runMissed && !record.paused && this.dueAfter(schedule, Date.parse(record.since), now) !== undefined) {
        this.deps.log(`Schedule "${schedule.name}" missed a run while the editor was closed; running it once now.`);
        this.deps.state.set(schedule.name, { ...this.deps.state.get(schedule.name), since: iso(now) });
        this.start(schedule, 'missed');
      } else if (startup) {
        // Missed runs without runMissed are let go: they are accounted for from now on.
        this.deps.state.set(schedule.name, { ...record, since: iso(now) });
      }
      this.arm(schedule);
    }
    this.deps.changed();
  }

  list(): readonly Schedule[] {
    return this.schedules;
  }

  get(name: string): Schedule | undefined {
    return this.schedules.find((s) => s.name === name);
  }

  isRunning(name: string): boolean {
    return this.running.has(name);
  }

  isPaused(name: string): boolean {
    return this.deps.state.get(name).paused === true;
  }

  lastOutcome(name: string): LastOutcome | undefined {
    return this.deps.state.get(name).lastOutcome;
  }

  /** The next time the schedule runs on its own; undefined when paused or never again. */
  nextRun(name: string): Date | undefined {
    const schedule = this.get(name);
    if (!schedule || this.isPaused(name)) return undefined;
    return schedule.pattern.nextRun(new Date(this.deps.now()));
  }

  /** Runs the schedule now, paused or not; false when it is unknown or already running. */
  runNow(name: string): boolean {
    const schedule = this.get(name);
    if (!schedule || this.running.has(name)) return false;
    this.start(schedule, 'manual');
    return true;
  }

  pause(name: string): void {
    if (!this.get(name)) return;
    this.deps.state.set(name, { ...this.deps.state.get(name), paused: true });
    this.deps.changed();
  }

  resume(name: string): void {
    if (!this.get(name)) return;
    this.deps.state.set(name, { ...this.deps.state.get(name), paused: false, since: iso(this.deps.now()) });
    this.deps.changed();
  }

  dispose(): void {
    this.disposed = true;
    for (const timer of this.timers.values()) timer.dispose();
    this.timers.clear();
  }

  /** The first due time in (after, upTo], if any. */
  private dueAfter(schedule: Schedule, after: number, upTo: number): number | undefined {
    const next = schedule.pattern.nextRun(new Date(after));
    return next && next.getTime() <= upTo ? next.getTime() : undefined;
  }

  private arm(schedule: Schedule): void {
    if (this.disposed) return;
    const record = this.deps.state.get(schedule.name);
    const now = this.deps.now();
    const from = Math.max(now, record.since ? Date.parse(record.since) : now);
    const next = schedule.pattern.nextRun(new Date(from));
    if (!next) return;
    const wait = Math.min(Math.max(next.getTime() - now, 0), MAX_TIMER_MS);
    this.timers.set(
      schedule.name,
      this.deps.setTimer(() => this.tick(schedule), wait),
    );
  }

  private tick(schedule: Schedule): void {
    if (this.disposed || this.get(schedule.name) !== schedule) return;
    const now = this.deps.now();
    const record = this.deps.state.get(schedule.name);
    const since = record.since ? Date.parse(record.since) : now;
    if (this.dueAfter(schedule, since, now) !== undefined) {
      this.deps.state.set(schedule.name, { ...record, since: iso(now) });
      if (record.paused) this.deps.log(`Schedule "${schedule.name}" is paused; its run due now is skipped.`);
      else if (this.running.has(schedule.name)) this.deps.log(`Schedule "${schedule.name}" is still running; its run due now is skipped.`);
      else this.start(schedule, 'due');
    }
    this.arm(schedule);
  }

  private start(schedule: Schedule, trigger: RunTrigger): void {
    this.running.add(schedule.name);
    this.deps.changed();
    const finish = (outcome: LastOutcome): void => {
      this.running.delete(schedule.name);
      this.deps.state.set(schedule.name, { ...this.deps.state.get(schedule.name), lastOutcome: outcome });
      this.deps.changed();
    };
    let running: Promise<LastOutcome>;
    try {
      running = this.deps.run(schedule, trigger);
    } catch (err) {
      running = Promise.reject(err);
    }
    running.then(finish, (err: unknown) => {
      const message = messageOf(err);
      this.deps.log(`Schedule "${schedule.name}" could not start its run: ${message}`);
      finish({ at: iso(this.deps.now()), reason: 'failed-to-start', summary: message, blocked: [] });
    });
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
