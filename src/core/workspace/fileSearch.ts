/**
 * File search, a part loaded on first use (src/core/parts.ts): listing and searching the
 * workspace's files with ripgrep or the Node walk, the glob confinement both share, and glob
 * matching for approval rules. It holds picomatch and ignore, which nothing at start needs.
 */
export { NodeScan } from './nodeScan';
export { ripgrepListFiles, ripgrepSearch } from './ripgrep';
export { globIsMatch } from './globs';
