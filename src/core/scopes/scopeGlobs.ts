import * as fs from 'node:fs';
import * as path from 'node:path';
import { ArborError } from '../errors';
import type { GlobKit, WriteScope } from './writeScope';

/**
 * Write scopes as globs: checking a scope a delegation asks for, narrowing it into the parent's,
 * and matching a path against it.
 *
 * Invariants:
 * - a child's effective scope is never wider than its parent's: each of its terms holds every
 *   glob of one of the parent's terms, or one glob that provably lies inside that term (a path
 *   is in scope when it matches every glob of one term), so `scopeAllows(child, p)` implies
 *   `scopeAllows(parent, p)` for every path (the property test checks it);
 * - `globWithin` only answers true when it can prove it (a sound, incomplete test): a glob it
 *   cannot compare is kept beside the parent's, never instead of it, and the request counts as
 *   narrowed;
 * - globs mean what they mean to the workspace tools (`*.ts` is any depth, picomatch with dot
 *   files); globs that could split wrongly on `/` (braces or brackets holding a `/`), negations
 *   and extglobs are refused, since the narrowing compares globs segment by segment.
 */
export const MAX_SCOPE_GLOBS = 50;

/** Refuses a glob a scope cannot hold (TOOL_ARGUMENTS_INVALID or PATH_OUTSIDE_WORKSPACE, changing nothing). */
export function checkScopeGlob(files: GlobKit, glob: string): string {
  files.parseGlob(glob);
  const bad = /^!/.test(glob) ? 'a negation ("!")' : /[()|]/.test(glob) ? 'an extglob ("(", ")" or "|")' : /\{[^}]*\/|\[[^\]]*\//.test(glob) ? 'a "/" inside braces or brackets' : !files.matcherCanTake(glob) ? 'an escaped backslash' : undefined;
  if (bad) throw new ArborError('TOOL_ARGUMENTS_INVALID', `The scope glob "${glob}" is refused: it has ${bad}. Use plain workspace globs such as "src/parser/**" or "docs/*.md".`, { glob });
  return normalize(glob);
}

/** A glob without "./" or empty segments; a glob without a "/" is a name at any depth (`**\/name`). */
function normalize(glob: string): string {
  const segments = glob.split('/').filter((s, i, all) => s !== '' && s !== '.' && !(s === '**' && all[i - 1] === '**'));
  if (segments.length === 0 || (segments.length === 1 && segments[0] === '**')) return '**';
  return glob.includes('/') ? segments.join('/') : `**/${segments[0]}`;
}

/** The outcome of narrowing: the child's scope and the requested globs that were not inside the parent's. */
export interface NarrowedScope {
  readonly scope: WriteScope | undefined;
  readonly narrowed: readonly string[];
}

/**
 * The scope of a child that asks for `requested` (undefined: it asks for nothing and inherits)
 * under a parent with `parent` (undefined: unscoped). `setBy` names who asked, for refusals.
 */
export function narrowScope(kit: GlobKit, parent: WriteScope | undefined, requested: readonly string[] | undefined, setBy: string): NarrowedScope {
  if (requested === undefined) return { scope: parent, narrowed: [] };
  if (requested.length > MAX_SCOPE_GLOBS) throw new ArborError('TOOL_ARGUMENTS_INVALID', `A scope has at most ${MAX_SCOPE_GLOBS} globs; this one has ${requested.length}.`);
  const globs = [...new Set(requested.map((g) => checkScopeGlob(kit, g)))];
  const setByChain = [...(parent?.setBy ?? []), setBy];
  if (!parent) return { scope: { terms: globs.map((g) => [g]), globs, setBy: setByChain }, narrowed: [] };
  const terms: string[][] = [];
  const narrowed: string[] = [];
  for (const glob of globs) {
    if (parent.terms.some((term) => term.every((p) => globWithin(kit, glob, p)))) {
      terms.push([glob]);
      continue;
    }
    narrowed.push(glob);
    for (const term of parent.terms) {
      if (term.some((p) => disjoint(glob, p))) continue;
      terms.push(simplify(kit, [...term, glob]));
    }
  }
  return { scope: { terms: dedupe(terms), globs, setBy: setByChain }, narrowed };
}

/** Whether a workspace-relative path (forward slashes) is inside the scope. */
export function scopeAllows(kit: GlobKit, scope: WriteScope, relative: string): boolean {
  return scope.terms.some((term) => term.every((glob) => matcher(kit, glob)(relative)));
}

/**
 * The folders inside `folder` that hold everything the scope lets an agent change: for each term,
 * the deepest leading folder one of its globs names (`src/parser` for `src/parser/**`, `docs` for
 * `docs/a.md`). A term whose globs name no folder (`**\/*.md`) needs all of `folder`. Folders that
 * do not exist are left out: nothing of the scope is there for a command to change.
 */
export function scopeFolders(scope: WriteScope, folder: string): string[] {
  const out = new Set<string>();
  for (const term of scope.terms) {
    const deepest = term.map(leadingFolder).sort((a, b) => b.length - a.length)[0] ?? '';
    if (deepest === '') return [folder];
    const full = path.join(folder, ...deepest.split('/'));
    if (fs.existsSync(full) && fs.statSync(full).isDirectory()) out.add(full);
  }
  return [...out];
}

function leadingFolder(glob: string): string {
  const segments = glob.split('/');
  const literal: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (SYNTAX.test(segment)) break;
    literal.push(segment);
  }
  return literal.join('/');
}

/** The scope in words: its terms, each a glob or globs joined by "and" (a path must match all of one). */
export function describeScope(scope: WriteScope): string {
  if (scope.terms.length === 0) return 'no file';
  return scope.terms.map((t) => t.join(' and ')).join(', ');
}

const matchers = new Map<string, (relative: string) => boolean>();
function matcher(kit: GlobKit, glob: string): (relative: string) => boolean {
  let m = matchers.get(glob);
  if (!m) matchers.set(glob, (m = kit.globMatcher(glob)));
  return m;
}

/** Drops each glob another glob of the term lies within (it adds nothing to their conjunction). */
function simplify(kit: GlobKit, term: readonly string[]): string[] {
  const unique = [...new Set(term)];
  return unique.filter((g, i) => !unique.some((other, j) => j !== i && globWithin(kit, other, g) && !(globWithin(kit, g, other) && j > i)));
}

function dedupe(terms: string[][]): string[][] {
  const seen = new Set<string>();
  return terms.filter((t) => {
    const key = [...t].sort().join('\0');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const SYNTAX = /[*?[\]{}]/;

/** Two globs whose literal leading folders part ways match no path in common. */
function disjoint(a: string, b: string): boolean {
  const sa = a.split('/');
  const sb = b.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    if (SYNTAX.test(sa[i]) || SYNTAX.test(sb[i])) return false;
    if (sa[i] !== sb[i]) return true;
  }
  return false;
}

/**
 * Whether every path glob `a` matches is one glob `b` matches, where that can be shown segment by
 * segment (false when it cannot: the caller then keeps both). Both are normalized scope globs.
 */
export function globWithin(kit: GlobKit, a: string, b: string): boolean {
  if (a === b || b === '**') return true;
  // Braces may spell the same set in many ways: only the same glob is known to be inside.
  if (b.includes('{')) return false;
  const sa = a.split('/');
  const sb = b.split('/');
  const memo = new Map<string, boolean>();
  const within = (i: number, j: number): boolean => {
    const key = `${i},${j}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let answer: boolean;
    if (j === sb.length) answer = i === sa.length;
    // A last "**" is taken to match one segment or more: picomatch matches none with it only sometimes ("src/**" matches "src", "*/**" does not).
    else if (sb[j] === '**' && j === sb.length - 1) answer = sa.slice(i).some((s) => s !== '**');
    else if (sb[j] === '**') answer = within(i, j + 1) || (i < sa.length && within(i + 1, j));
    else if (i === sa.length || sa[i] === '**') answer = false;
    else answer = segmentWithin(kit, sa[i], sb[j]) && within(i + 1, j + 1);
    memo.set(key, answer);
    return answer;
  };
  return within(0, 0);
}

/** One segment of `a` (not `**`) inside one segment of `b` (not `**`). */
function segmentWithin(kit: GlobKit, a: string, b: string): boolean {
  if (a === b || b === '*') return true;
  if (SYNTAX.test(a)) return false;
  return kit.globIsMatch(a, b, { dot: true, windows: false });
}
