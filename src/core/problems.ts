import { messageOf } from './errors';

/**
 * A failure the core cannot hand to a caller: nobody awaits it any more (a session write that
 * fails after its turn has ended), or handing it on would break others (an event listener that
 * threw). Whoever makes the runtime says where such problems go (the editor: Arbor's log, see
 * RuntimeOptions.onProblem); without that they are Node process warnings, so none goes unseen.
 */
export type OnProblem = (problem: string, err: unknown) => void;

/** The default: a process warning (stderr unless the process listens for 'warning'), the error's stack as its detail. */
export const warnProcess: OnProblem = (problem, err) => {
  process.emitWarning(problem, { type: 'ArborProblem', detail: (err instanceof Error && err.stack) || messageOf(err) });
};
