/** The workspace port in the editor: VS Code's documents, edits, diagnostics and its ripgrep. */
export { VsCodeWorkspace, excludeGlobs, findRipgrep } from './vscodeWorkspace';
