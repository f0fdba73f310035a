import { askUserQuestionTool } from './askUserQuestion';
import type { RuntimeTool } from './context';
import { exitPlanModeTool } from './exitPlanMode';
import { runCommandTool } from './runCommand';
import { subagentTools } from './subagentTools';
import { updatePlanTool } from './updatePlan';
import { waitTool } from './waitTool';
import { workspaceTools } from './workspaceTools';

/**
 * The tools every runtime offers, in the order the model sees them (the run's policy and plan
 * mode then hide some; see visibility.ts). A new tool is defined with defineTool() in a file
 * of its own and added here.
 */
export const builtinTools: readonly RuntimeTool[] = [
  ...subagentTools,
  askUserQuestionTool,
  exitPlanModeTool,
  runCommandTool,
  ...workspaceTools,
  waitTool,
  updatePlanTool,
];
