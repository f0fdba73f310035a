/**
 * The scopes part, loaded on first use (src/core/parts.ts): the write guard (writeGuard.ts),
 * narrowing and matching write scopes (scopeGlobs.ts), and what happens when another live
 * agent holds a file (heldFiles.ts).
 */
export { WriteGuard } from './writeGuard';
export { checkScopeGlob, describeScope, scopeFolders, globWithin, narrowScope, scopeAllows, MAX_SCOPE_GLOBS, type NarrowedScope } from './scopeGlobs';
export { checkInScope, consentToHolders, writeChecked, OVERLAP_OPTIONS } from './heldFiles';
