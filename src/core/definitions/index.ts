/**
 * Agent definitions: files that name an agent, its instructions and its bounds (tools, limits,
 * model). The parser (and the YAML library it needs) is reached only through
 * `parseDefinitionFile`; the runtime needs the set and the bounds alone, so loading the editor's
 * start bundle does not load the parser.
 */
export type { AgentDefinition, AgentLimits, DefinitionFileResult, DefinitionFormat, DefinitionScope } from './types';
export { AgentDefinitions } from './definitionSet';
export { boundsFor, refusingList, type AgentBounds, type LimitKey, type ToolAllowList } from './bounds';
export { agentLimit } from './agentLimit';
export { resolveDefinitions, type ResolvedDefinitions } from './resolveDefinitions';
export { parseDefinitionFile, isGlob, type DefinitionFileInput } from './parseDefinition';
export { MAX_PROMPT_CHARS, MAX_DESCRIPTION_CHARS, MAX_TOOL_PATTERNS, MAX_DEFINITION_FILE_BYTES, MAX_FRONTMATTER_CHARS, definitionName } from './schema';
export { definitionTemplate, definitionFileName } from './template';
