import * as z from 'zod';
import { lazySchema } from '../lazySchema';
import { sleep } from '../models/modelRetry';
import { jsonResult } from './catalog';
import { defineTool } from './defineTool';

/** The tool an agent waits with; the runaway guards read a step that waited as polling. */
export const WAIT_TOOL = 'wait';
export const MIN_WAIT_SECONDS = 0.05;
export const MAX_WAIT_SECONDS = 300;

export const waitArgsSchema = lazySchema(() => z.object({
  seconds: z.number().min(MIN_WAIT_SECONDS).max(MAX_WAIT_SECONDS).describe(`How long to wait, in seconds (${MIN_WAIT_SECONDS} to ${MAX_WAIT_SECONDS}).`),
}));

/**
 * Lets an agent that polls something which changes over time (a build, its subagents' state)
 * pause between checks instead of calling the same tool again at once. It changes nothing, so
 * plan mode keeps it. The turn's signal ends the wait at once, so Stop never waits for it.
 */
export const waitTool = defineTool({
  name: WAIT_TOOL,
  description:
    'Wait the given number of seconds, then go on. Use it between checks when you poll for something that changes over time ' +
    '(a build, your subagents), instead of repeating the check at once. Returns {"waited_seconds"}.',
  schema: waitArgsSchema,
  readOnly: true,
  async run(args, ctx) {
    await sleep(args.seconds * 1000, ctx.signal);
    return jsonResult({ waited_seconds: args.seconds });
  },
});
