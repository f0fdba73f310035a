/** Tools the models call: each defined once with a zod schema, a description and a handler. */
export type { ToolDefinition, ToolResult } from './types';
export type { BaseToolContext, RuntimeToolContext, ToolCaller, ToolHost } from './context';
export { ToolCatalog, errorResult, jsonResult } from './catalog';
export { subagentTools, delegateTaskTool, startSubagentTool, sendMessageTool, listAgentsTool, interruptAgentTool } from './subagentTools';
export { askUserQuestionTool, type AskUserQuestionContext } from './askUserQuestion';
export { exitPlanModeTool, type ExitPlanModeContext } from './exitPlanMode';
export { runCommandTool, runCommandArgsSchema } from './runCommand';
export {
  workspaceTools,
  readFileTool,
  listFilesTool,
  searchTextTool,
  editFileTool,
  createFileTool,
  getDiagnosticsTool,
  numberedLines,
  replaceExact,
  unifiedDiff,
  MAX_READ_LINES,
  MAX_READ_CHARS,
  MAX_LINE_CHARS,
  DEFAULT_LIST_LIMIT,
  MAX_LIST_LIMIT,
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  MAX_DIAGNOSTICS,
} from './workspaceTools';
