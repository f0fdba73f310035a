/**
 * The workspace's files, a part loaded on first use (src/core/parts.ts): reading and writing
 * them confined to the workspace folders (ConfinedFiles), listing and searching them with
 * ripgrep or the Node walk, the glob confinement both share, and glob matching for approval
 * rules. It holds picomatch and ignore, which nothing at start needs.
 */
export { ConfinedFiles, checkExpected } from './confinedFs';
export { NodeScan } from './nodeScan';
export { ripgrepListFiles, ripgrepSearch } from './ripgrep';
export { globIsMatch, globMatcher, matcherCanTake, parseGlob } from './globs';
