// The parts of Arbor that only some users need, each loaded the first time it is used. In the
// production build each is a bundle of its own (dist/<name>.js, see scripts/lib/bundleParts.mjs):
// each require() here loads that bundle, and nothing else may import a part's module,
// so the start bundle holds these loaders only. Under tsx (tests) the module itself loads.
/* eslint-disable @typescript-eslint/no-require-imports -- loading each part on first use is the point */
import * as vscode from 'vscode';
import { once } from '../core';
import type * as ConversationViews from './conversation/conversationPanels';
import type * as Definitions from './definitions/definitionsPart';
import type * as ManageApprovals from './approvals/manageApprovals';
import type * as ExternalRuns from './external/externalRuns';
import type * as ModelCommands from './models/modelCommands';
import type * as Review from './review/changeReview';
import type * as Schedules from './schedules';
import type * as WorktreeRuns from './worktrees/worktreeRuns';

/**
 * Registers a part's commands at start (the editor runs a contributed command only once it is
 * registered): the first of them loads the part, and each hands its arguments to the part's own
 * handler of that id.
 */
export function commandsOnFirstUse<Id extends string>(ids: readonly Id[], handlers: () => Record<Id, (...args: unknown[]) => unknown>): vscode.Disposable[] {
  return ids.map((id) => vscode.commands.registerCommand(id, (...args: unknown[]) => handlers()[id](...args)));
}

/** Running external agents: their engine, connection, processes and terminals. */
export const externalRunsPart = once((): typeof ExternalRuns => require('./external/externalRuns') as typeof ExternalRuns);

/** Agents in a git worktree of their own: creating, reviewing, keeping and discarding worktrees. */
export const worktreesPart = once((): typeof WorktreeRuns => require('./worktrees/worktreeRuns') as typeof WorktreeRuns);

/** Scheduled runs: the scheduler, the cron parser, the Schedules view's nodes and the commands' work. */
export const schedulesPart = once((): typeof Schedules => require('./schedules') as typeof Schedules);

/** The agents' conversation views (webviews): their model, wire schemas and handlers. */
export const conversationsPart = once((): typeof ConversationViews => require('./conversation/conversationPanels') as typeof ConversationViews);

/** Agent definition files: the parser and its YAML library, their problems, Run Agent...'s pick, New Agent Definition... (once a definition file exists). */
export const definitionsPart = once((): typeof Definitions => require('./definitions/definitionsPart') as typeof Definitions);
export const NEW_DEFINITION_COMMAND = 'arbor.newAgentDefinition';

/** Review, Keep and Undo of what an agent changed. */
export const reviewPart = once((): typeof Review => require('./review/changeReview') as typeof Review);
export const REVIEW_COMMANDS = ['arbor.reviewChanges', 'arbor.keepChanges', 'arbor.undoChanges', 'arbor.keepFileChange', 'arbor.undoFileChange'] as const;

/** Arbor: Select Model... and Arbor: Set API Key... */
export const modelCommandsPart = once((): typeof ModelCommands => require('./models/modelCommands') as typeof ModelCommands);
export const MODEL_COMMANDS = ['arbor.selectModel', 'arbor.setApiKey'] as const;

/** Arbor: Manage Approvals...: the list of approval rules, removing and adding one. */
export const manageApprovalsPart = once((): typeof ManageApprovals => require('./approvals/manageApprovals') as typeof ManageApprovals);
export const MANAGE_APPROVALS_COMMAND = 'arbor.manageApprovals';
