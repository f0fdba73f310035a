import * as z from 'zod';
import { once } from '../../core';

/**
 * The setting `arbor.sessions.afterReload`, read with the other settings at every start: what
 * happens to the agents a restore found interrupted (afterReload.ts does it, in the restore's part).
 */
export const AFTER_RELOAD_SETTING = 'arbor.sessions.afterReload';
export const afterReloadSchema = once(() => z.enum(['ask', 'resume', 'keepStopped']));
export type AfterReloadSetting = z.infer<ReturnType<typeof afterReloadSchema>>;

/** The setting's value, checked; unset is `ask`, and a bad value is reported and read as `ask`. */
export function parseAfterReloadSetting(value: unknown, onProblem: (message: string) => void): AfterReloadSetting {
  if (value === undefined || value === null) return 'ask';
  const parsed = afterReloadSchema().safeParse(value);
  if (parsed.success) return parsed.data;
  onProblem(`${AFTER_RELOAD_SETTING} must be one of ${afterReloadSchema().options.join(', ')}; using ask.`);
  return 'ask';
}
