/** Write scopes and files two agents change: the runtime's start-up state and its part's loader. */
export { Writes } from './writes';
export type { WriteScope, WriteSeam, WritesHost, WriteAttempt, WriteGuardDeps, BranchScopeRequest, FileOverlap } from './writeScope';
export { scopeRunsPart } from '../parts';
