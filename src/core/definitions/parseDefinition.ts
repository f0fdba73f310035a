import * as path from 'node:path';
import type * as z from 'zod';
import { lineOfField, splitFrontmatter } from './frontmatter';
import { mapOtherFormat } from './otherFormats';
import { arborFrontmatterSchema, definitionName, MAX_PROMPT_CHARS, RUN_POWER_KEYS, RUN_WIDE_LIMITS } from './schema';
import { definedAgentsPart } from '../parts';
import type { DefinitionFileResult, DefinitionFormat, DefinitionScope } from './types';

/**
 * One definition file, read whole or refused whole: bad frontmatter, a field of the wrong shape,
 * an unknown tool name, a key that would raise the run's powers or an oversized prompt refuses
 * the file, with a message that names the field and, where it can, its line. A refused file is
 * never partly used. Tool names are checked against the tools that exist (`knownTools`); a glob
 * is checked for its syntax only, since the tools it is meant for may be registered later.
 */
export interface DefinitionFileInput {
  file: string;
  text: string;
  format: DefinitionFormat;
  scope: DefinitionScope;
}

export function parseDefinitionFile(input: DefinitionFileInput, knownTools: ReadonlySet<string>): DefinitionFileResult {
  const { file, text, format, scope } = input;
  const notes: string[] = [];
  const refuse = (message: string, line?: number): DefinitionFileResult => ({ ok: false, file, message, ...(line !== undefined ? { line } : {}), notes });
  const front = splitFrontmatter(text);
  if (!front.ok) return refuse(front.message, front.line);
  let fields: Record<string, unknown> = front.data;
  for (const key of RUN_POWER_KEYS) {
    if (!(key in fields)) continue;
    if (format === 'arbor') return refuse(`"${key}" cannot be set in a definition: a definition can only narrow what an agent may do, never change the run's interaction mode or approvals`, lineOfField(text, key));
  }
  if (format === 'arbor') {
    const limits = fields.limits;
    if (limits && typeof limits === 'object') {
      const runWide = RUN_WIDE_LIMITS.find((k) => k in limits);
      if (runWide) return refuse(`limits.${runWide} counts for the whole run; set it in arbor.limits (a definition sets maxTurns, maxStepsPerTurn, maxLiveChildren, maxDelegationDepth)`, lineOfField(text, 'limits'));
    }
  } else {
    const mapped = mapOtherFormat(format, fields);
    fields = mapped.fields;
    notes.push(...mapped.notes);
  }
  const parsed = arborFrontmatterSchema().safeParse(fields);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.length ? issue.path.join('.') : undefined;
    return refuse(describeIssue(issue, field), field ? lineOfField(text, String(issue.path[0])) : 2);
  }
  const data = parsed.data;
  const name = data.name ?? nameFromFile(file);
  if (name === undefined) return refuse('the definition has no name, and the file name cannot be one; add a "name:" field', 2);
  for (const tool of data.tools ?? []) {
    if (isGlob(tool)) {
      if (!validGlob(tool)) return refuse(`tools: "${tool}" is not a valid glob`, lineOfField(text, 'tools'));
    } else if (!knownTools.has(tool)) {
      return refuse(`tools: there is no tool named "${tool}" (tools: ${[...knownTools].sort().join(', ')})`, lineOfField(text, 'tools'));
    }
  }
  const prompt = front.body;
  if (prompt.length > MAX_PROMPT_CHARS) return refuse(`the instructions (the body) are ${prompt.length} characters; a definition's may be at most ${MAX_PROMPT_CHARS}`);
  if (!prompt) return refuse('the body is empty: write the agent\'s instructions below the frontmatter');
  return {
    ok: true,
    notes,
    definition: {
      name,
      description: data.description,
      ...(data.model !== undefined && data.model.toLowerCase() !== 'inherit' ? { model: data.model } : {}),
      ...(data.tools !== undefined ? { tools: data.tools } : {}),
      ...(data.limits !== undefined ? { limits: data.limits } : {}),
      ...(data.kind !== undefined ? { kind: data.kind } : {}),
      ...(data.scope !== undefined ? { writeScope: data.scope } : {}),
      ...(data.budget !== undefined ? { budget: data.budget } : {}),
      prompt,
      file,
      scope,
      format,
    },
  };
}

function describeIssue(issue: z.core.$ZodIssue, field: string | undefined): string {
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((k) => `"${field ? `${field}.` : ''}${k}"`).join(', ');
    return `unknown field${issue.keys.length === 1 ? '' : 's'} ${keys} (a definition has name, description, model, tools, limits, kind, scope, budget)`;
  }
  return `${field ?? 'the frontmatter'}: ${issue.message}`;
}

/** "reviewer.agent.md" and "reviewer.md" are both "reviewer". */
function nameFromFile(file: string): string | undefined {
  const base = path.basename(file).replace(/\.agent\.md$/i, '').replace(/\.md$/i, '');
  const parsed = definitionName().safeParse(base);
  return parsed.success ? parsed.data : undefined;
}

export function isGlob(pattern: string): boolean {
  return /[*?[\]{}!]/.test(pattern);
}

function validGlob(pattern: string): boolean {
  try {
    // The matcher enforcement uses, from its part: a glob is checked by what will match it.
    definedAgentsPart().toolGlobMatcher(pattern);
    return true;
  } catch {
    // The matcher refuses a pattern it cannot read: that is the answer, not a failure.
    return false;
  }
}
