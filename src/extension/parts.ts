// The parts of Arbor that only some users need, each loaded the first time it is used. In the
// production build each is a bundle of its own (dist/<name>.js, see scripts/lib/bundleParts.mjs):
// each require() here loads that bundle, and nothing else may import a part's module,
// so the start bundle holds these loaders only. Under tsx (tests) the module itself loads. A part
// that fails to load is a PART_LOAD_FAILED error naming it (src/core/partLoader.ts).
/* eslint-disable @typescript-eslint/no-require-imports -- loading each part on first use is the point */
import * as vscode from 'vscode';
import { partOnFirstUse } from '../core';
import type * as AttentionPart from './attention/attentionPart';
import type * as BudgetNotifications from './budgets/budgetNotifications';
import type * as ConversationViews from './conversation/conversationPanels';
import type * as Definitions from './definitions/definitionsPart';
import type * as Demo from './demo/demoScript';
import type * as TranscriptRenderer from './conversation/transcriptRenderer';
import type * as ManageApprovals from './approvals/manageApprovals';
import type * as RunLinks from './api/runLinks';
import type * as QuestionPrompts from './questions/questionPrompts';
import type * as ExternalRuns from './external/externalRuns';
import type * as HistoryCommands from './history/historyCommands';
import type * as ModelCommands from './models/modelCommands';
import type * as Review from './review/changeReview';
import type * as RestoreAtStart from './agents/restoreAtStart';
import type * as Schedules from './schedules';
import type * as Testing from './testing';
import type * as WorktreeCommands from './worktrees/worktreeCommands';
import type * as WorktreeRuns from './worktrees/worktreeRuns';
import type * as SandboxSettings from './sandboxSettings';

/**
 * Registers a part's commands at start (the editor runs a contributed command only once it is
 * registered): the first of them loads the part, and each hands its arguments to the part's own
 * handler of that id.
 */
export function commandsOnFirstUse<Id extends string>(ids: readonly Id[], handlers: () => Record<Id, (...args: unknown[]) => unknown>): vscode.Disposable[] {
  return ids.map((id) => vscode.commands.registerCommand(id, (...args: unknown[]) => handlers()[id](...args)));
}

/** Running external agents: their engine, connection, processes and terminals. */
export const externalRunsPart = partOnFirstUse('external agents (dist/externalRuns.js)', (): typeof ExternalRuns => require('./external/externalRuns') as typeof ExternalRuns);

/** The scheme of a worktree file's base side in a Review (its documents come from the worktree runs). */
export const WORKTREE_BASE_SCHEME = 'arbor-worktree-base';

/** Start Agent in a Worktree, and Review / Keep / Discard of a worktree agent's changes. */
export const worktreeCommandsPart = partOnFirstUse('the worktree commands (dist/worktreeCommands.js)', (): typeof WorktreeCommands => require('./worktrees/worktreeCommands') as typeof WorktreeCommands);
export const WORKTREE_COMMANDS = ['arbor.runAgentInWorktree', 'arbor.reviewWorktree', 'arbor.keepWorktree', 'arbor.discardWorktree'] as const;

/** Agents in a git worktree of their own: creating, reviewing, keeping and discarding worktrees. */
export const worktreesPart = partOnFirstUse('worktree runs (dist/worktreeRuns.js)', (): typeof WorktreeRuns => require('./worktrees/worktreeRuns') as typeof WorktreeRuns);

/** Scheduled runs: the scheduler, the cron parser, the Schedules view's nodes and the commands' work. */
export const schedulesPart = partOnFirstUse('scheduled runs (dist/schedules.js)', (): typeof Schedules => require('./schedules') as typeof Schedules);

/** The agents' conversation views (webviews): their model, wire schemas and handlers. */
export const conversationsPart = partOnFirstUse('the conversation views (dist/conversationPanels.js)', (): typeof ConversationViews => require('./conversation/conversationPanels') as typeof ConversationViews);

/** Agent definition files: the parser and its YAML library, their problems, Run Agent...'s pick, New Agent Definition... (once a definition file exists). */
export const definitionsPart = partOnFirstUse('agent definition files (dist/definitionsPart.js)', (): typeof Definitions => require('./definitions/definitionsPart') as typeof Definitions);
export const NEW_DEFINITION_COMMAND = 'arbor.newAgentDefinition';

/** Review, Keep and Undo of what an agent changed. */
export const reviewPart = partOnFirstUse('Review, Keep and Undo (dist/changeReview.js)', (): typeof Review => require('./review/changeReview') as typeof Review);
export const REVIEW_COMMANDS = ['arbor.reviewChanges', 'arbor.keepChanges', 'arbor.undoChanges', 'arbor.keepFileChange', 'arbor.undoFileChange'] as const;

/** Arbor: Select Model... and Arbor: Set API Key... */
export const modelCommandsPart = partOnFirstUse('the model commands (dist/modelCommands.js)', (): typeof ModelCommands => require('./models/modelCommands') as typeof ModelCommands);
export const MODEL_COMMANDS = ['arbor.selectModel', 'arbor.setApiKey'] as const;

/** Arbor: Manage Approvals...: the list of approval rules, removing and adding one. */
export const manageApprovalsPart = partOnFirstUse('Manage Approvals (dist/manageApprovals.js)', (): typeof ManageApprovals => require('./approvals/manageApprovals') as typeof ManageApprovals);
export const MANAGE_APPROVALS_COMMAND = 'arbor.manageApprovals';

/** The built-in demo's script, played by the scripted model (Arbor: Run Demo, or no other model). */
export const demoPart = partOnFirstUse('the demo script (dist/demoScript.js)', (): typeof Demo => require('./demo/demoScript') as typeof Demo);

/** A transcript as the Markdown an open transcript document shows (Open Transcript). */
export const transcriptRendererPart = partOnFirstUse('the transcript view (dist/transcriptRenderer.js)', (): typeof TranscriptRenderer => require('./conversation/transcriptRenderer') as typeof TranscriptRenderer);

/** The handle the host tests drive Arbor through, made only when ARBOR_TESTING=1. */
export const testingPart = partOnFirstUse('the test handle (dist/testing.js)', (): typeof Testing => require('./testing') as typeof Testing);

/** Arbor History's commands: Refresh, Resume Session... and Open Session Transcript. */
export const historyCommandsPart = partOnFirstUse('the History commands (dist/historyCommands.js)', (): typeof HistoryCommands => require('./history/historyCommands') as typeof HistoryCommands);
export const HISTORY_COMMANDS = ['arbor.refreshHistory', 'arbor.resumeSession', 'arbor.openSessionTranscript'] as const;

/** The quick picks of a question an agent asks (the queue of questions is at start). */
export const questionPromptsPart = partOnFirstUse('the question prompts (dist/questionPrompts.js)', (): typeof QuestionPrompts => require('./questions/questionPrompts') as typeof QuestionPrompts);

/** The notifications of the budget guard: a paused run, a BLOCKED unattended run, a runaway guard's pause. */
export const budgetNotificationsPart = partOnFirstUse('the budget notifications (dist/budgetNotifications.js)', (): typeof BudgetNotifications => require('./budgets/budgetNotifications') as typeof BudgetNotifications);

/** Links such as vscode://arbor.arbor/run?prompt=...: confirming and starting the run a link asks for. */
export const runLinksPart = partOnFirstUse('the run links (dist/runLinks.js)', (): typeof RunLinks => require('./api/runLinks') as typeof RunLinks);

/** Putting the Agents tree of the last window back when Arbor starts (after activation, never in its way). */
export const restoreAtStartPart = partOnFirstUse('the restore of the Agents tree (dist/restoreAtStart.js)', (): typeof RestoreAtStart => require('./agents/restoreAtStart') as typeof RestoreAtStart);

/** The sandbox settings (arbor.sandbox.*), read at the first command and when they change. */
export const sandboxSettingsPart = partOnFirstUse('the sandbox settings (dist/sandboxSettings.js)', (): typeof SandboxSettings => require('./sandboxSettings') as typeof SandboxSettings);

/** What waits on the human: the Agents view's "Waiting for you", its badge and status-bar item, their notices, Show What Is Waiting.... */
export const attentionPart = partOnFirstUse('what is waiting for you (dist/attentionPart.js)', (): typeof AttentionPart => require('./attention/attentionPart') as typeof AttentionPart);
