import * as z from 'zod';
import { lazySchema } from '../core';

/**
 * A timeout setting of the OpenAI-compatible endpoint (`arbor.model.openaiCompatible.*TimeoutSeconds`),
 * in seconds, as the milliseconds the provider waits. No `vscode` here, so the rule is tested in
 * plain Node.
 *
 * Invariants: what the provider is given is never below MIN_TIMEOUT_SECONDS. A positive value
 * below it (0.0004 s would round to 0 ms and fail every request at once) is raised to it with a
 * warning that names the setting; a value that is not a number of seconds up to a day is
 * reported and the provider's default is used. The manifest declares the same minimum, so the
 * Settings editor flags such a value as well.
 */

export const MIN_TIMEOUT_SECONDS = 1;
const MAX_TIMEOUT_SECONDS = 86_400;

const timeoutSeconds = lazySchema(() => z.number().positive().max(MAX_TIMEOUT_SECONDS));

/** `value` of setting `arbor.<key>` as ms, or undefined (unset, or bad: the default is used). */
export function timeoutMs(key: string, value: unknown, onProblem: (message: string) => void): number | undefined {
  if (value === undefined || value === null) return undefined;
  const parsed = timeoutSeconds.safeParse(value);
  if (!parsed.success) {
    onProblem(`arbor.${key} must be a number of seconds from ${MIN_TIMEOUT_SECONDS} to ${MAX_TIMEOUT_SECONDS}; using the default.`);
    return undefined;
  }
  if (parsed.data < MIN_TIMEOUT_SECONDS) {
    onProblem(`arbor.${key} is ${parsed.data} s, below the minimum of ${MIN_TIMEOUT_SECONDS} s; using ${MIN_TIMEOUT_SECONDS} s.`);
    return MIN_TIMEOUT_SECONDS * 1000;
  }
  return Math.round(parsed.data * 1000);
}
