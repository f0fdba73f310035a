/** Tools the models call: each defined once with a zod schema, a description and a handler. */
export type { ToolDefinition, ToolResult } from './types';
export type { BaseToolContext, RuntimeToolContext, ToolCaller, ToolHost } from './context';
export { ToolCatalog, deniedResult, errorResult, jsonResult } from './catalog';
export { subagentTools, delegateTaskTool, startSubagentTool, sendMessageTool, listAgentsTool, interruptAgentTool } from './subagentTools';
export { askUserQuestionTool, type AskUserQuestionContext } from './askUserQuestion';
export { exitPlanModeTool, type ExitPlanModeContext } from './exitPlanMode';
export { runCommandTool, runCommandArgsSchema } from './runCommand';
export { externalTool, externalToolArgsSchema, type ExternalToolArgs, type ExternalToolSpec } from './externalTool';
