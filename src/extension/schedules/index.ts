// Scheduled runs: schedules read from the setting and the workspace file, a scheduler that
// starts due runs while the window is open (and a missed one at startup when asked), the
// Schedules view's nodes with Run Now, Pause and Resume, and each run's outcome as a
// notification and a session in History. Only some users write schedules, so this part loads
// when there is one, or a schedule command runs (schedulesOnDemand.ts, src/extension/parts.ts).
import * as vscode from 'vscode';
import * as z from 'zod';
import { ArborError, once } from '../../core';
import type { Agent } from '../../core/agents';
import type { RunResult } from '../runs/runResult';
import type { Schedule } from './scheduleConfig';
import { parsedArgument } from '../errorReporting';
import type { ScheduleCommand, ScheduleDeps } from './schedulesOnDemand';
import { ScheduleSources } from './scheduleSources';
import { scheduledRun, type ScheduledRunEvents } from './scheduledRun';
import { Scheduler, scheduleRecordSchema, type RunTrigger, type ScheduleRecord, type ScheduleStateStore } from './scheduler';
import { SchedulesTreeProvider } from './schedulesView';

export type { Schedule } from './scheduleConfig';
export type { Scheduler } from './scheduler';
export type { SchedulesNode, SchedulesTreeProvider } from './schedulesView';
export type { ScheduleDeps } from './schedulesOnDemand';

const STATE_KEY = 'arbor.schedules.state';

export interface ScheduledRuns {
  scheduler: Scheduler;
  view: SchedulesTreeProvider;
  sources: ScheduleSources;
  /** Resolves once the schedules have been read for the first time. */
  ready: Promise<void>;
  /** A scheduled run's agent started. */
  onDidStartRun: vscode.Event<{ schedule: Schedule; agent: Agent; trigger: RunTrigger }>;
  /** A scheduled run settled; `notification` is what its notification said. */
  onDidFinishRun: vscode.Event<{ schedule: Schedule; result: RunResult; notification: string }>;
  /** What Run Now, Pause and Resume do (the commands are registered at start). */
  commands: Record<ScheduleCommand, (arg?: unknown) => Promise<string | undefined>>;
}

export function createScheduledRuns({ context, runtime, runs, log }: ScheduleDeps): ScheduledRuns {
  const started = new vscode.EventEmitter<{ schedule: Schedule; agent: Agent; trigger: RunTrigger }>();
  const finished = new vscode.EventEmitter<{ schedule: Schedule; result: RunResult; notification: string }>();
  const events: ScheduledRunEvents = {
    started: (schedule, agent, trigger) => started.fire({ schedule, agent, trigger }),
    finished: (schedule, result, notification) => finished.fire({ schedule, result, notification }),
  };
  const state = workspaceStateStore(context.workspaceState, log);
  const scheduler = new Scheduler({
    now: () => Date.now(),
    setTimer: (callback, ms) => {
      const handle = setTimeout(callback, ms);
      return { dispose: () => clearTimeout(handle) };
    },
    run: scheduledRun({ runtime, runs, log, events }),
    state,
    log: (message) => log.info(message),
    // The view is made just below; nothing changes before the schedules are first read.
    changed: () => view.refresh(),
  });
  const view = new SchedulesTreeProvider(scheduler);
  const sources = new ScheduleSources(
    (parsed) => {
      scheduler.setSchedules(parsed.schedules);
      view.setProblems(parsed.problems);
    },
    (problem) => {
      log.warn(problem);
      void vscode.window.showWarningMessage(`Arbor: ${problem}`);
    },
  );
  context.subscriptions.push(started, finished, scheduler, view, sources);
  const ready = sources.read();
  return { scheduler, view, sources, ready, onDidStartRun: started.event, onDidFinishRun: finished.event, commands: scheduleCommands(scheduler, log) };
}

function workspaceStateStore(memento: vscode.Memento, log: vscode.LogOutputChannel): ScheduleStateStore {
  const all = (): Record<string, ScheduleRecord> => {
    const parsed = z.record(z.string(), scheduleRecordSchema()).safeParse(memento.get<unknown>(STATE_KEY) ?? {});
    if (parsed.success) return parsed.data;
    log.warn(`The saved state of the schedules is unreadable (${z.prettifyError(parsed.error)}); starting afresh.`);
    return {};
  };
  return {
    get: (name) => all()[name] ?? {},
    set: (name, record) => {
      void memento.update(STATE_KEY, { ...all(), [name]: record });
    },
  };
}

const scheduleArgumentSchema = once(() =>
  z.union([z.undefined(), z.string().min(1).max(100), z.object({ type: z.literal('schedule'), name: z.string().min(1).max(100) })]),
);

function scheduleCommands(scheduler: Scheduler, log: vscode.LogOutputChannel): ScheduledRuns['commands'] {
  /** The schedule named by a node or a name; a bad argument rejects the command and changes nothing. */
  const named = (command: string, arg: unknown): string | undefined =>
    parsedArgument(log, () => {
      const parsed = scheduleArgumentSchema().safeParse(arg);
      if (!parsed.success) throw new ArborError('INPUT_INVALID', `${command} takes a schedule's name or a node of the Schedules view.`);
      const name = typeof parsed.data === 'string' ? parsed.data : parsed.data?.name;
      if (name !== undefined && !scheduler.get(name)) throw new ArborError('INPUT_INVALID', `${command}: there is no schedule named "${name}".`, { name });
      return name;
    });
  const pick = async (command: string): Promise<string | undefined> => {
    const picked = await vscode.window.showQuickPick(
      scheduler.list().map((s) => ({ label: s.name, description: s.cron, detail: s.prompt.slice(0, 200) })),
      { title: command, placeHolder: scheduler.list().length ? 'Which schedule?' : 'No schedules: add them to arbor.schedules or .arbor/schedules.json' },
    );
    return picked?.label;
  };
  const command =
    (title: string, act: (name: string) => void) =>
    async (arg?: unknown): Promise<string | undefined> => {
      const name = named(title, arg) ?? (await pick(title));
      if (name === undefined) return undefined;
      act(name);
      return name;
    };
  return {
    'arbor.runScheduleNow': command('Arbor: Run Schedule Now', (name) => {
      if (!scheduler.runNow(name)) void vscode.window.showInformationMessage(`Arbor: "${name}" is running already.`);
    }),
    'arbor.pauseSchedule': command('Arbor: Pause Schedule', (name) => scheduler.pause(name)),
    'arbor.resumeSchedule': command('Arbor: Resume Schedule', (name) => scheduler.resume(name)),
  };
}
