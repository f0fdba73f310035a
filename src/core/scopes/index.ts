/** Write scopes and files two agents change: the write guard, its state and its part's loader. */
export { WriteGuard, type WriteAttempt, type WriteGuardDeps } from './writeGuard';
export { WriteScopes, type WriteScope, type WriteSeam, type BranchScopeRequest } from './writeScope';
export { FileOverlaps, type FileOverlap } from './fileOverlaps';
export { FileQueue } from './fileQueue';
export { scopeRunsPart } from '../parts';
