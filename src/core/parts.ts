// The parts of the core that only some runs need, each loaded the first time it is used (see
// partLoader.ts). In the production build each is a bundle of its own (dist/<name>.js, built by
// scripts/lib/bundleParts.mjs): each require() here loads that bundle, and nothing else may
// import a part's module, so dist/arbor.js holds these loaders only. Under tsx (tests) the
// module itself loads. A part's module may use anything the start bundle holds; what it alone
// uses (a package such as picomatch) lives in its bundle.
/* eslint-disable @typescript-eslint/no-require-imports -- loading each part on first use is the point */
import { partOnFirstUse } from './partLoader';
import type * as WorkspaceFiles from './workspace/workspaceFiles';
import type * as OpenAiCompatible from './models/openAiCompatible';
import type * as ScriptedModel from './models/scriptedModel';
import type * as WorkspaceToolRuns from './tools/workspaceToolRuns';
import type * as PlanApproval from './tools/planApproval';
import type * as Processes from './processes';
import type * as Restore from './restore/restorePart';
import type * as SandboxRun from './sandbox/sandboxRun';
import type * as DefinedAgents from './definitions/definedAgents';
import type * as ExternalAgentsSetting from './external/externalAgentsSetting';
import type * as SessionJournal from './sessions/sessionJournal';
import type * as ScopeRuns from './scopes/scopeRuns';
import type * as ApprovalAsking from './interaction/approvalAsking';
import type * as BudgetPart from './budgets/budgetPart';
import type * as ResumeSession from './resumeSession';
import type * as SessionCatalog from './sessions/sessionCatalog';

/** Reading, writing, listing and searching the workspace's files, confined to its folders, and matching globs: picomatch and ignore. */
export const workspaceFilesPart = partOnFirstUse('access to the workspace files (dist/workspaceFiles.js)', () => require('./workspace/workspaceFiles') as typeof WorkspaceFiles);

/** What the workspace tools do when a model calls them: numbered reads, exact edits and the diffs a human approves. */
export const workspaceToolRunsPart = partOnFirstUse('the workspace tools (dist/workspaceToolRuns.js)', () => require('./tools/workspaceToolRuns') as typeof WorkspaceToolRuns);

/** The OpenAI-compatible HTTP provider: its streamed requests, retries and event-stream parsing. */
export const openAiCompatiblePart = partOnFirstUse('the OpenAI-compatible model provider (dist/openAiCompatible.js)', () => require('./models/openAiCompatible') as typeof OpenAiCompatible);

/** The scripted model: the demo model without an API key, and the model a script file plays. */
export const scriptedModelPart = partOnFirstUse('the scripted model (dist/scriptedModel.js)', () => require('./models/scriptedModel') as typeof ScriptedModel);

/** The processes Arbor starts: a run_command call's, and finding and ending all that a command or an external agent started. */
export const processesPart = partOnFirstUse('process control (dist/processes.js)', () => require('./processes') as typeof Processes);

/** What exit_plan_mode does: asking the human to approve a plan. */
export const planApprovalPart = partOnFirstUse('plan approval (dist/planApproval.js)', () => require('./tools/planApproval') as typeof PlanApproval);

/** Each live root's live-state record, and putting the Agents tree back from them when a window starts (Runtime.restoreLive). */
export const restorePart = partOnFirstUse('the restore of the Agents tree (dist/restorePart.js)', () => require('./restore/restorePart') as typeof Restore);

/** Applying agent definitions to the agents that use one: their bounds, tool lists and globs, model, instructions, and the list the delegation tools show. */
export const definedAgentsPart = partOnFirstUse('agent definitions (dist/definedAgents.js)', () => require('./definitions/definedAgents') as typeof DefinedAgents);

/** The command sandbox: probing the machine, starting a command under bubblewrap with its network filter. */
export const sandboxPart = partOnFirstUse('the command sandbox (dist/sandboxRun.js)', () => require('./sandbox/sandboxRun') as typeof SandboxRun);

/** The parser of the setting arbor.externalAgents: the entries' schemas, loaded once someone configured an external agent. */
export const externalAgentsSettingPart = partOnFirstUse('the external agents setting (dist/externalAgentsSetting.js)', () => require('./external/externalAgentsSetting') as typeof ExternalAgentsSetting);

/** The journal of new one-shot sessions (many sessions' first batches in one append), and writing out the journal a crashed window left. */
export const sessionJournalPart = partOnFirstUse('the journal of new sessions (dist/sessionJournal.js)', () => require('./sessions/sessionJournal') as typeof SessionJournal);

/** Write scopes and files two agents change: narrowing and matching scopes, asking about another agent's file. */
export const scopeRunsPart = partOnFirstUse('write scopes (dist/scopeRuns.js)', () => require('./scopes/scopeRuns') as typeof ScopeRuns);

/** Asking a person for an approval (the prompt that names who asks, the answers and their scopes) and the live grants. */
export const approvalAskingPart = partOnFirstUse('approval prompts (dist/approvalAsking.js)', () => require('./interaction/approvalAsking') as typeof ApprovalAsking);

/** Budgets at their cap and per branch: a child's slice, a spent branch's pause and raise, a run's BLOCKED report and raised limits. */
export const budgetPart = partOnFirstUse('budgets at their cap and per branch (dist/budgetPart.js)', () => require('./budgets/budgetPart') as typeof BudgetPart);

/** Reopening a past session as a new root (History's Resume, Runtime.resumeRoot). */
export const resumeSessionPart = partOnFirstUse('resuming a past session (dist/resumeSession.js)', () => require('./resumeSession') as typeof ResumeSession);

/** Reading the session folder back: History's listing and its index, loading a past session, reopening one for writing. */
export const sessionCatalogPart = partOnFirstUse('reading past sessions (dist/sessionCatalog.js)', () => require('./sessions/sessionCatalog') as typeof SessionCatalog);
