// Schedules as the user writes them (the `arbor.schedules` setting, `.arbor/schedules.json`):
// a trust boundary like every file and setting. Each entry is parsed on its own, so one bad
// entry is named in a problem and skipped while the others still run. Pure: no 'vscode' import.
import { messageOf } from '../../core';
import { parseCronExpression } from 'cron-schedule';
import * as z from 'zod';
import { lazySchema, runLimitsSchema, type RunLimitsInput } from '../../core';

export const scheduleEntrySchema = lazySchema(() =>
  z
    .object({
      name: z.string().trim().min(1).max(100),
      /** Five fields (minute hour day month weekday), or six with seconds first; read in local time. */
      cron: z.string().trim().min(1).max(200),
      prompt: z.string().max(100_000).regex(/\S/, 'must not be blank'),
      /** The agent's name in the Agents view and History; the schedule's name by default. */
      label: z.string().trim().min(1).max(200).optional(),
      limits: runLimitsSchema.partial().strict().optional(),
      /** Run once at startup when a due time passed while the editor was closed. */
      runMissed: z.boolean().default(false),
    })
    .strict(),
);

/** A parsed schedule: the entry, where it was written, and its cron pattern. */
export interface Schedule {
  name: string;
  cron: string;
  prompt: string;
  label: string;
  limits?: RunLimitsInput;
  runMissed: boolean;
  /** Where it was written: `arbor.schedules[0]`, `.arbor/schedules.json[2]`. */
  source: string;
  pattern: CronPattern;
}

/** A cron expression's due times. */
export interface CronPattern {
  /** The first due time strictly after `after`; undefined when there is none. */
  nextRun(after: Date): Date | undefined;
}

export interface ParsedSchedules {
  schedules: Schedule[];
  /** One sentence per entry that was skipped, naming where it is and what is wrong. */
  problems: string[];
}

/** The schedules of one source (a setting's value or a file's parsed JSON): a list, or `{ "schedules": [...] }`. */
export function parseSchedules(raw: unknown, source: string): ParsedSchedules {
  if (raw === undefined || raw === null) return { schedules: [], problems: [] };
  const list = Array.isArray(raw) ? raw : isRecord(raw) && Array.isArray(raw.schedules) ? raw.schedules : undefined;
  if (!list) return { schedules: [], problems: [`${source} must be a list of schedules (or an object whose "schedules" is one); none of it was read.`] };
  const schedules: Schedule[] = [];
  const problems: string[] = [];
  list.forEach((entry: unknown, index) => {
    const where = `${source}[${index}]${isRecord(entry) && typeof entry.name === 'string' ? ` ("${entry.name}")` : ''}`;
    const parsed = scheduleEntrySchema.safeParse(entry);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.length ? i.path.map(String).join('.') : 'the entry'}: ${i.message}`).join('; ');
      problems.push(`${where} is skipped: ${issues}.`);
      return;
    }
    const pattern = cronPattern(parsed.data.cron);
    if (typeof pattern === 'string') {
      problems.push(`${where} is skipped: cron "${parsed.data.cron}" is not a cron expression (${pattern}).`);
      return;
    }
    const { name, cron, prompt, label, limits, runMissed } = parsed.data;
    schedules.push({ name, cron, prompt, label: label ?? name, limits, runMissed, source: `${source}[${index}]`, pattern });
  });
  return { schedules, problems };
}

/** Joins sources in order; a name used again is reported and the later entry skipped. */
export function mergeSchedules(...parts: ParsedSchedules[]): ParsedSchedules {
  const byName = new Map<string, Schedule>();
  const problems: string[] = [];
  for (const part of parts) {
    problems.push(...part.problems);
    for (const schedule of part.schedules) {
      const first = byName.get(schedule.name);
      if (first) problems.push(`${schedule.source} is skipped: ${first.source} already has the name "${schedule.name}".`);
      else byName.set(schedule.name, schedule);
    }
  }
  return { schedules: [...byName.values()], problems };
}

/** The pattern, or why it is not one. */
function cronPattern(expression: string): CronPattern | string {
  let cron: ReturnType<typeof parseCronExpression>;
  try {
    cron = parseCronExpression(expression);
  } catch (err) {
    return messageOf(err);
  }
  const pattern: CronPattern = {
    nextRun(after) {
      try {
        return cron.getNextDate(after);
      } catch {
        return undefined; // no date matches (such as the 31st of February)
      }
    },
  };
  return pattern.nextRun(new Date()) ? pattern : 'no date ever matches it';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
