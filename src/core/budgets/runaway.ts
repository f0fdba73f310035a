import * as z from 'zod';
import { once } from '../once';
import { anchorShape } from '../shapeAnchor';
import type { ToolCall } from '../models/types';
import { WAIT_TOOL } from '../tools/waitTool';

/** What an empty runaway setting means: the value of each guard the setting leaves out. */
const DEFAULTS = { sameCallRepeats: 5, stepsWithoutChange: 40, pauseAgent: false } as const;

/**
 * Runaway guards: an agent that makes the same tool call with the same arguments N times in a
 * row, or M model steps in a row whose tools changed nothing (only read-only tools, or tools
 * that failed). The detector only counts; the budget guard shows the warning and, when the
 * setting says so, pauses the agent with the reason. Built on first use, like the defaults
 * below are written out, so that loading the module parses nothing.
 *
 * A poll is not a runaway. An agent that checks something that changes over time (a build, its
 * subagents) and waits between checks with the `wait` tool is polling on purpose:
 * - the wait is a call between two checks, so check, wait, check, ... never repeats one call
 *   (a wait again and again with nothing between does, and warns like any repeated call);
 * - a step in which a wait finished starts the count of steps without a change again, as a
 *   change does: waiting is how an agent lets the world change instead of spinning.
 * So a polling loop runs as long as its run's budgets allow (steps per turn, time, tokens,
 * cost), which bound it, while the same check again and again with no wait between still
 * warns, however slow the model is: the runtime cannot tell a slow model from a deliberate
 * pause, only a wait says so.
 */
export const runawaySettingsSchema = once(() =>
  z.object({
    /** The same call (tool and arguments) this many times in a row warns; 0 turns the check off. */
    sameCallRepeats: z.number().int().min(0).max(10_000).default(DEFAULTS.sameCallRepeats),
    /** This many model steps in a row that called tools but changed nothing warn; 0 turns it off. */
    stepsWithoutChange: z.number().int().min(0).max(100_000).default(DEFAULTS.stepsWithoutChange),
    /** Also pause the agent (like a Stop) when a guard warns. */
    pauseAgent: z.boolean().default(DEFAULTS.pauseAgent),
  }),
);

export type RunawaySettings = z.output<ReturnType<typeof runawaySettingsSchema>>;
export type RunawaySettingsInput = z.input<ReturnType<typeof runawaySettingsSchema>>;
/** The settings an empty runaway setting parses to (the same values the schema's defaults give). */
export const DEFAULT_RUNAWAY: RunawaySettings = Object.freeze({ ...DEFAULTS });

export class RunawayDetector {
  /** The last call: its tool, its arguments as sent, and their canonical form once it was needed. */
  private lastName: string | undefined;
  private lastArguments = '';
  /** The last call's arguments parsed (NOT_JSON when they were not JSON), once a comparison needed them. */
  private lastParsed: unknown;
  private repeats = 0;
  private stepsWithoutChange = 0;
  /** Whether the step under way changed something; undefined until its first call. */
  private stepChanged: boolean | undefined;
  /** Whether a wait of the step under way finished: the step is a poll. */
  private stepWaited = false;
  /** Calls of the step under way whose results are still to come. */
  private awaiting = 0;

  constructor(
    private readonly settings: () => RunawaySettings,
    private readonly isReadOnly: (toolName: string) => boolean,
  ) {}

  /** A tool call the model made; returns the warning when this call trips a guard. */
  toolCalled(call: ToolCall): string | undefined {
    if (this.awaiting === 0) this.endStep();
    this.awaiting++;
    this.repeats = this.sameAsLast(call) ? this.repeats + 1 : 1;
    const { sameCallRepeats, stepsWithoutChange } = this.settings();
    if (sameCallRepeats > 0 && this.repeats >= sameCallRepeats) {
      return `the same call (${call.name} with the same arguments) ${this.repeats} times in a row`;
    }
    if (stepsWithoutChange > 0 && this.stepsWithoutChange >= stepsWithoutChange) {
      return `${this.stepsWithoutChange} model steps in a row without a tool that changed anything`;
    }
    return undefined;
  }

  /** A call's result: a tool that is not read-only and did not fail changed something; a wait that finished makes its step a poll. */
  toolFinished(toolName: string, isError: boolean | undefined): void {
    if (this.awaiting > 0) this.awaiting--;
    if (!isError && toolName === WAIT_TOOL) this.stepWaited = true;
    // One store whichever way it goes: a branch taken only now and then (a subagent's result
    // after many reads) would throw away the optimized code of every guard that inlines this.
    this.stepChanged = (!isError && !this.isReadOnly(toolName)) || (this.stepChanged ?? false);
  }

  /** The agent answered without tools, or a person spoke to it: nothing is running away. */
  reset(): void {
    this.lastName = undefined;
    this.lastArguments = '';
    this.lastParsed = undefined;
    this.repeats = 0;
    this.stepsWithoutChange = 0;
    this.stepChanged = undefined;
    this.stepWaited = false;
    this.awaiting = 0;
  }

  /**
   * Whether `call` is the last call again (the same tool, the same arguments by meaning), and it
   * becomes the last call. Arguments are put in canonical form only when the tool is the same and
   * the text differs: the same text is the same call, another tool another call.
   */
  private sameAsLast(call: ToolCall): boolean {
    let same = false;
    if (call.name !== this.lastName) this.lastParsed = undefined;
    else if (call.arguments === this.lastArguments) same = true;
    else {
      const parsed = parsedArguments(call.arguments);
      same = sameArguments(parsed, this.lastParsed ?? parsedArguments(this.lastArguments));
      this.lastParsed = parsed;
    }
    this.lastName = call.name;
    this.lastArguments = call.arguments;
    return same;
  }

  private endStep(): void {
    if (this.stepChanged === undefined) return;
    this.stepsWithoutChange = this.stepChanged || this.stepWaited ? 0 : this.stepsWithoutChange + 1;
    this.stepChanged = undefined;
    this.stepWaited = false;
  }
}

/**
 * Arguments compared by meaning: the same JSON object with its keys in any order is the same call.
 * A text that is not JSON stands for itself (NOT_JSON).
 */
const NOT_JSON: unique symbol = Symbol('not JSON');

/** A call's arguments as their JSON value, or NOT_JSON. */
function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // Not JSON: such arguments are the same only as the same text, which the caller compared first.
    return NOT_JSON;
  }
}

/** Whether two calls' arguments texts say the same (see sameArguments). */
export function sameArgumentTexts(a: string, b: string): boolean {
  return a === b || sameArguments(parsedArguments(a), parsedArguments(b));
}

/**
 * Whether two calls' parsed arguments (their texts differ) say the same: the same JSON value,
 * whatever the order of its keys and its spacing; texts that are not JSON are the same only as
 * the same text, compared before. The same answer as comparing their key-sorted serializations,
 * without building either: the delegations of a fan-out differ at their first differing value.
 */
function sameArguments(a: unknown, b: unknown): boolean {
  if (a === NOT_JSON || b === NOT_JSON) return false;
  return sameJson(a, b);
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  const keys = Object.keys(ra);
  if (keys.length !== Object.keys(rb).length) return false;
  for (const key of keys) if (!Object.hasOwn(rb, key) || !sameJson(ra[key], rb[key])) return false;
  return true;
}

/** A runaway count's shape outlives the last agent that had one (shapeAnchor.ts). */
anchorShape(new RunawayDetector(() => DEFAULT_RUNAWAY, () => false));
