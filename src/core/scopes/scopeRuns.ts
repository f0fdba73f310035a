/**
 * The scopes part, loaded on first use (src/core/parts.ts): narrowing and matching write scopes
 * (scopeGlobs.ts) and what the write guard does when another agent is live (heldFiles.ts).
 */
export { checkScopeGlob, describeScope, globWithin, narrowScope, scopeAllows, MAX_SCOPE_GLOBS, type NarrowedScope } from './scopeGlobs';
export { checkInScope, consentToHolders, writeChecked, OVERLAP_OPTIONS } from './heldFiles';
