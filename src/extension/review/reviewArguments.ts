// Review, Keep and Undo take their argument from a tree row, the palette (none), a keybinding or
// a `command:` link: it is parsed here first, and a bad one is INPUT_INVALID that changes nothing.
import * as z from 'zod';
import { Agent } from '../../core/agents';
import { ArborError, lazySchema } from '../../core';
import type { ChangedFileNode } from './changedFileNode';

const idSchema = lazySchema(() => z.string().min(1).max(1000));

const changedFileSchema = lazySchema(() => z.object({
  type: z.literal('changed-file'),
  sessionId: idSchema,
  path: z.string().min(1).max(4096),
  created: z.boolean(),
}));

/** An agent's (or a past session's) whole change set, or one file of it. */
const targetSchema = lazySchema(() => z.union([
  z.undefined(),
  z.instanceof(Agent),
  idSchema,
  changedFileSchema,
  // A History row names its session at entry.header.id.
  z.object({ type: z.literal('session'), entry: z.object({ header: z.object({ id: idSchema }) }) }),
]));

export type ChangesTarget = { kind: 'ask' } | { kind: 'session'; sessionId: string } | { kind: 'file'; file: ChangedFileNode };

export function parseChangesTarget(command: string, arg: unknown): ChangesTarget {
  const parsed = targetSchema.safeParse(arg);
  if (!parsed.success) {
    throw new ArborError(
      'INPUT_INVALID',
      `${command} takes an agent or session (a node of the Agents or History view, or its id as a string) or a changed file of the Agents view; the argument it was given is not one.`,
      { issues: z.treeifyError(parsed.error) },
    );
  }
  const value = parsed.data;
  if (value === undefined) return { kind: 'ask' };
  if (typeof value === 'string') return { kind: 'session', sessionId: value };
  if (value instanceof Agent) return { kind: 'session', sessionId: value.id };
  if (value.type === 'changed-file') return { kind: 'file', file: value };
  return { kind: 'session', sessionId: value.entry.header.id };
}

/** Per-file Keep and Undo act on one changed file only. */
export function parseChangedFile(command: string, arg: unknown): ChangedFileNode {
  const parsed = changedFileSchema.safeParse(arg);
  if (!parsed.success) {
    throw new ArborError('INPUT_INVALID', `${command} takes a changed file of the Agents view; the argument it was given is not one.`, { issues: z.treeifyError(parsed.error) });
  }
  return parsed.data;
}
