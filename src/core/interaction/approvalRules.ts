/**
 * Remembered approval rules: "edit: src/**", "command: npm test", "tool: mcp_github_*".
 *
 * Invariants:
 * - A rule allows; nothing here denies. A rule that matches lets the action run without
 *   asking in every run (interactive, unattended, subagents alike): it is how a person says
 *   once what unattended runs may do.
 * - Matching is pure and strict: an edit rule is a glob over the workspace-relative path (a
 *   path that is absolute or climbs out with `..` never matches). That path is the real one
 *   (resolveWorkspacePath follows every link), with `/` between names; a backslash in it is a
 *   character of a name (legal on Linux and macOS), never a separator, so "edit: src/**" does not
 *   cover a top-level file named `src\x`; a command rule is the exact
 *   command line, or a prefix followed by arguments free of shell operators (so
 *   "npm test *" never covers "npm test; rm -rf ~"); a tool rule is a glob over the tool's name.
 * - The rule made for a subject (by "Allow for this workspace" / "Allow always") matches that
 *   subject and never more: glob characters in a path are escaped, and a command whose text
 *   would read as a wider rule gets no remembered rule at all, nor does a path or tool name
 *   holding a backslash.
 * - A glob rule never names a literal backslash (`\\`): picomatch collapses runs of escaped
 *   backslashes (so such a rule could cover other names) and loops forever on some of them
 *   (`(!\\\\` at the end). Such a pattern is refused when written and matches nothing if stored.
 */
import * as z from 'zod';
import { once } from '../once';
import { workspaceFilesPart } from '../parts';

/** The actions a rule can name, by the keyword a rule is written with. */
export const APPROVAL_RULE_KINDS = Object.freeze({ edit: 'edit-file', command: 'run-command', tool: 'vscode-tool' } as const);
export type ApprovalRuleKind = keyof typeof APPROVAL_RULE_KINDS;
type RuleAction = (typeof APPROVAL_RULE_KINDS)[ApprovalRuleKind];

/**
 * Where a rule lives: `workspace` (this workspace only), `user` ("always": every workspace of
 * this user), `setting` (the user setting arbor.approvals.rules). Agent-scoped grants are not
 * rules: they live in memory with the agent (see ApprovalService).
 */
export type ApprovalRuleScope = 'workspace' | 'user' | 'setting';
/** The scopes a person can add to from a prompt or Manage Approvals. */
export type StoredRuleScope = Exclude<ApprovalRuleScope, 'setting'>;

export interface ApprovalRulePattern {
  kind: ApprovalRuleKind;
  pattern: string;
}

export interface ApprovalRule extends ApprovalRulePattern {
  scope: ApprovalRuleScope;
}

/** Where the approval seam finds rules and remembers new ones; the editor keeps them. */
export interface ApprovalRuleStore {
  /** Every rule in force now, from all scopes. */
  rules(): readonly ApprovalRule[];
  /** Remember a rule (a duplicate is not added twice). */
  remember(rule: ApprovalRulePattern, scope: StoredRuleScope): Promise<void>;
}

const MAX_PATTERN_LENGTH = 2_000;
const RULE_TEXT = /^\s*([a-z]+)\s*:\s*(.*?)\s*$/s;

/** A rule as written: "<kind>: <pattern>", e.g. "edit: src/**" or "command: npm test". */
export const approvalRuleTextSchema = once(() => z
  .string()
  .max(MAX_PATTERN_LENGTH + 20)
  .transform((text, ctx): ApprovalRulePattern => {
    const match = RULE_TEXT.exec(text);
    const kinds = Object.keys(APPROVAL_RULE_KINDS).join(', ');
    if (!match) {
      ctx.addIssue({ code: 'custom', message: `write a rule as "<kind>: <pattern>" with kind one of ${kinds}` });
      return z.NEVER;
    }
    const [, kind, pattern] = match;
    if (!isRuleKind(kind)) {
      ctx.addIssue({ code: 'custom', message: `"${kind}" is not a kind of rule; use one of ${kinds}` });
      return z.NEVER;
    }
    if (pattern === '') {
      ctx.addIssue({ code: 'custom', message: 'the pattern after the colon is empty' });
      return z.NEVER;
    }
    if (/[\r\n]/.test(pattern)) {
      ctx.addIssue({ code: 'custom', message: 'a pattern is one line' });
      return z.NEVER;
    }
    if (kind !== 'command' && ESCAPED_BACKSLASH.test(pattern)) {
      ctx.addIssue({ code: 'custom', message: 'a glob rule cannot name a backslash; write * in its place' });
      return z.NEVER;
    }
    return { kind, pattern };
  }));

function isRuleKind(value: string): value is ApprovalRuleKind {
  return Object.hasOwn(APPROVAL_RULE_KINDS, value);
}

/** Parse one written rule; the message says what is wrong with it. */
export function parseApprovalRule(text: unknown): { ok: true; rule: ApprovalRulePattern } | { ok: false; message: string } {
  if (typeof text !== 'string') return { ok: false, message: 'a rule is text such as "command: npm test"' };
  const parsed = approvalRuleTextSchema().safeParse(text);
  if (parsed.success) return { ok: true, rule: parsed.data };
  return { ok: false, message: parsed.error.issues.map((i) => i.message).join('; ') };
}

export function formatApprovalRule(rule: ApprovalRulePattern): string {
  return `${rule.kind}: ${rule.pattern}`;
}

/** The rule keyword for an action, when rules can name it. */
export function ruleKindOf(action: string): ApprovalRuleKind | undefined {
  for (const [kind, named] of Object.entries(APPROVAL_RULE_KINDS) as Array<[ApprovalRuleKind, RuleAction]>) if (named === action) return kind;
  return undefined;
}

/**
 * Globs read the same on every platform: `/` separates names, a backslash escapes the next
 * character, and a subject's backslashes are never turned into separators (picomatch would on
 * Windows unless told not to). picomatch is part of file search, loaded by the first glob rule
 * that is checked.
 */
const GLOB = Object.freeze({ dot: true, windows: false });
/** An escaped backslash in a glob: see the module's invariants. */
const ESCAPED_BACKSLASH = /\\\\/;

function globMatches(text: string, pattern: string): boolean {
  return !ESCAPED_BACKSLASH.test(pattern) && workspaceFilesPart().globIsMatch(text, pattern, GLOB);
}

/** Shell syntax that would chain, redirect or substitute: never part of a prefix rule's arguments. */
const SHELL_OPERATORS = /[;&|<>`$()\\\r\n]/;

/** Does `text` hold no shell syntax that could chain, redirect or substitute (what a prefix rule's arguments may not hold)? */
export function isShellFree(text: string): boolean {
  return !SHELL_OPERATORS.test(text);
}

/** Does `rule` allow the action `action` on `subject`? */
export function ruleMatches(rule: ApprovalRulePattern, action: string, subject: string): boolean {
  if (APPROVAL_RULE_KINDS[rule.kind] !== action) return false;
  switch (rule.kind) {
    case 'edit': {
      const path = normalisePath(subject);
      return path !== undefined && globMatches(path, rule.pattern);
    }
    case 'command':
      return commandMatches(rule.pattern, subject);
    case 'tool':
      return subject !== '' && globMatches(subject, rule.pattern);
  }
}

/**
 * "*" allows any command line; "<prefix> *" allows the prefix alone or followed by arguments
 * without shell operators; anything else must equal the command line (trimmed).
 */
function commandMatches(pattern: string, subject: string): boolean {
  const command = subject.trim();
  if (command === '') return false;
  if (pattern === '*') return true;
  if (pattern.endsWith(' *')) {
    const prefix = pattern.slice(0, -2).trimEnd();
    if (command === prefix) return true;
    if (!command.startsWith(`${prefix} `)) return false;
    return isShellFree(command.slice(prefix.length));
  }
  return command === pattern;
}

/**
 * A workspace-relative path as rules read it (`/` between names, a backslash kept as the
 * character it is); undefined when it is absolute or leaves the workspace.
 */
function normalisePath(subject: string): string | undefined {
  const path = subject.replace(/^(\.\/)+/, '');
  if (path === '' || path.startsWith('/') || /^[a-zA-Z]:/.test(path)) return undefined;
  if (path.split('/').some((segment) => segment === '..')) return undefined;
  return path;
}

/**
 * The narrowest rule that allows exactly this subject, offered by "Allow for this workspace"
 * and "Allow always"; undefined when no rule can name it without allowing more.
 */
export function ruleForSubject(action: string, subject: string | undefined): ApprovalRulePattern | undefined {
  const kind = ruleKindOf(action);
  if (!kind || subject === undefined) return undefined;
  // A glob cannot name a backslash faithfully (see the invariants): no rule rather than a wider one.
  if (kind !== 'command' && subject.includes('\\')) return undefined;
  let pattern: string;
  switch (kind) {
    case 'edit': {
      const path = normalisePath(subject);
      if (path === undefined) return undefined;
      pattern = escapeGlob(path);
      break;
    }
    case 'command':
      pattern = subject.trim();
      // "*" and "... *" are wildcards in a command rule: such a command has no exact rule.
      if (pattern === '*' || pattern.endsWith(' *')) return undefined;
      break;
    case 'tool':
      pattern = escapeGlob(subject);
      break;
  }
  if (pattern === '' || pattern.length > MAX_PATTERN_LENGTH || /[\r\n]/.test(pattern)) return undefined;
  const rule = { kind, pattern };
  // The rule must read back as itself and cover its subject (a safety net for odd names).
  const reread = parseApprovalRule(formatApprovalRule(rule));
  if (!reread.ok || reread.rule.pattern !== pattern || !ruleMatches(rule, action, subject)) return undefined;
  return rule;
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]{}()!+@|^$]/g, '\\$&');
}

/** The first rule that allows the action, in the order given. */
export function findMatchingRule(rules: readonly ApprovalRule[], action: string, subject: string | undefined): ApprovalRule | undefined {
  if (subject === undefined) return undefined;
  return rules.find((rule) => ruleMatches(rule, action, subject));
}

/** Rules kept in memory: the default when the editor supplies no store, and for tests. */
export class MemoryApprovalRuleStore implements ApprovalRuleStore {
  private readonly list: ApprovalRule[];

  constructor(initial: readonly ApprovalRule[] = []) {
    this.list = [...initial];
  }

  rules(): readonly ApprovalRule[] {
    return this.list;
  }

  remember(rule: ApprovalRulePattern, scope: StoredRuleScope): Promise<void> {
    if (!this.list.some((r) => r.scope === scope && r.kind === rule.kind && r.pattern === rule.pattern)) this.list.push({ ...rule, scope });
    return Promise.resolve();
  }

  remove(rule: ApprovalRule): void {
    const i = this.list.findIndex((r) => r.scope === rule.scope && r.kind === rule.kind && r.pattern === rule.pattern);
    if (i >= 0) this.list.splice(i, 1);
  }
}
