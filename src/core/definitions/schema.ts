import * as z from 'zod';
import { sliceRequestSchema } from '../budgets/sliceRequest';
import { once } from '../once';

/**
 * The frontmatter of an Arbor definition (`.arbor/agents/*.md`), checked whole: an unknown key is
 * a mistake to point out, not something to ignore, and the keys that would raise what a run may
 * do (its interaction mode, its approvals) are refused by name, since a workspace file must not
 * be able to grant them.
 */
export const MAX_PROMPT_CHARS = 40_000;
/** Checked before the YAML parser sees a file: nothing about a definition needs more. */
export const MAX_DEFINITION_FILE_BYTES = 256 * 1024;
export const MAX_FRONTMATTER_CHARS = 32 * 1024;
export const MAX_DESCRIPTION_CHARS = 4_000;
export const MAX_TOOL_PATTERNS = 200;

/** Names are what a model and a person type: short, no path or markup characters. */
export const definitionName = once(() =>
  z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/, 'a name is 1-64 letters, digits, spaces, ".", "_" or "-", starting with a letter or digit'),
);

/** The keys of `arbor.limits` that bound one agent; each can only be tighter than the run's. */
export const agentLimitsSchema = once(() =>
  z.strictObject({
    maxTurns: z.number().int().min(1).max(1_000_000).optional(),
    maxStepsPerTurn: z.number().int().min(1).max(10_000).optional(),
    maxLiveChildren: z.number().int().min(0).max(10_000).optional(),
    maxDelegationDepth: z.number().int().min(0).max(64).optional(),
  }),
);

/** Keys that would change what the run may do without asking: refused in a definition. */
export const RUN_POWER_KEYS = ['interactionMode', 'nonInteractive', 'disableClarification', 'channelName', 'approvals', 'approvalRules', 'permissionMode', 'autoApprove'] as const;

/** `arbor.limits` keys that count for the whole run, which a definition (one agent) cannot set. */
export const RUN_WIDE_LIMITS = ['maxTokens', 'maxRunTurns', 'maxModelCalls', 'maxWallTimeSeconds', 'maxCost', 'maxLiveSubagents'] as const;

export const toolPattern = once(() => z.string().trim().min(1).max(200).regex(/^[A-Za-z0-9_.*?/:[\]{}!,-]+$/, 'a tool name or glob has letters, digits, "_", "-", ".", "/", ":" and glob characters only'));

/**
 * A write-scope glob as a definition writes it: relative to the workspace, no `..`, no negation or
 * extglob (the scopes part checks it again, with the same rules, when an agent is made with it).
 */
export const scopeGlob = once(() =>
  z
    .string()
    .trim()
    .min(1)
    .max(500)
    .refine((g) => !/^([\\/]|[A-Za-z]:)/.test(g) && !g.split(/[\\/]/).includes('..'), 'a scope glob is relative to the workspace folder, without ".."')
    .refine((g) => !/^!|[()|]/.test(g), 'a scope glob has no negation ("!") or extglob ("(", ")", "|")'),
);

export const arborFrontmatterSchema = once(() =>
  z.strictObject({
    name: definitionName().optional(),
    description: z.string().trim().min(1).max(MAX_DESCRIPTION_CHARS),
    model: z.string().trim().min(1).max(200).optional(),
    tools: z.array(toolPattern()).max(MAX_TOOL_PATTERNS).optional(),
    limits: agentLimitsSchema().optional(),
    kind: z.enum(['one-shot', 'continuable']).optional(),
    scope: z.array(scopeGlob()).min(1).max(50).optional(),
    /** The agent's own slice of the run's budget when it is started as a subagent (budgets/slices.ts). */
    budget: sliceRequestSchema().optional(),
  }),
);

export type ArborFrontmatter = z.output<ReturnType<typeof arborFrontmatterSchema>>;
