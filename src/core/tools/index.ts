/** Tools the models call: each defined once with a zod schema, a description and a handler. */
export type { ToolDefinition, ToolResult } from './types';
export type {
  Approvals,
  Asking,
  BaseToolContext,
  Delegation,
  LiveAgents,
  RuntimeTool,
  RuntimeToolContext,
  SubagentMessaging,
  ToolCaller,
  ToolHost,
  WorkspaceFolder,
} from './context';
export { defineTool, type ToolSpecInput } from './defineTool';
export { builtinTools } from './builtinTools';
export { isToolVisible } from './visibility';
export { ToolCatalog, deniedResult, errorResult, jsonResult } from './catalog';
export { subagentTools, delegateTaskTool, startSubagentTool, sendMessageTool, listAgentsTool, interruptAgentTool, limitExceeded } from './subagentTools';
export { askUserQuestionTool, type AskUserQuestionContext } from './askUserQuestion';
export { exitPlanModeTool, type ExitPlanModeContext } from './exitPlanMode';
export { runCommandTool, runCommandArgsSchema } from './runCommand';
export { updatePlanTool, updatePlanArgsSchema, UPDATE_PLAN_TOOL } from './updatePlan';
export { waitTool, waitArgsSchema, WAIT_TOOL, MIN_WAIT_SECONDS, MAX_WAIT_SECONDS } from './waitTool';
export {
  workspaceTools,
  readFileTool,
  listFilesTool,
  searchTextTool,
  editFileTool,
  createFileTool,
  getDiagnosticsTool,
  MAX_READ_LINES,
  MAX_READ_CHARS,
  MAX_LINE_CHARS,
  DEFAULT_LIST_LIMIT,
  MAX_LIST_LIMIT,
  DEFAULT_SEARCH_LIMIT,
  MAX_SEARCH_LIMIT,
  MAX_DIAGNOSTICS,
} from './workspaceTools';
export { externalTool, externalToolArgsSchema, type ExternalToolArgs, type ExternalToolSpec } from './externalTool';
