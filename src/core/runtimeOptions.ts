import type { Agent, RunWorkspace, TurnEngine } from './agents/agent';
import type { AgentDefinition } from './definitions/types';
import type { DurableSessionStore } from './agents/endedAgentLogs';
import type { ApprovalRuleStore, RunContext, UserInteractionService } from './interaction';
import type { PriceTable, RunawaySettingsInput } from './budgets';
import type { RunLimitsInput } from './limits';
import type { ModelProvider } from './models/types';
import type { OnProblem } from './problems';
import type { CommandSandbox } from './sandbox';
import type { SessionLogFactory } from './sessions/types';
import type { RuntimeTool } from './tools/context';
import type { ChangeSetStorage } from './workspace/changeSets';
import type { WorkspacePort } from './workspace/port';

/** How a runtime is made (the editor passes its model, sessions, settings and workspace). */
export interface RuntimeOptions {
  model: ModelProvider;
  /** The human-interaction seam; one is created over this runtime's registry when omitted. */
  interaction?: UserInteractionService;
  /**
   * Where agents write their sessions: in memory by default. A DurableSessionStore also makes
   * past sessions resumable (`resumeRoot`, and cold resume of settled continuable children).
   */
  sessions?: SessionLogFactory | DurableSessionStore;
  limits?: RunLimitsInput;
  /** What each model's tokens cost (per million in and out), so runs can count and cap their cost. */
  prices?: PriceTable;
  /** The runaway guards (same call repeated, steps that change nothing) and whether they pause the agent. */
  runaway?: RunawaySettingsInput;
  /** The clock run budgets read (wall time) and new sessions are dated by; Date.now by default. */
  now?: () => number;
  /**
   * Where the core reports a failure no caller receives (a session not saved after its turn,
   * an event listener that threw); process warnings by default. The editor sends them to its log.
   */
  onProblem?: OnProblem;
  /** The model an agent definition names, when it is available here (see definitions/definedAgents.ts). */
  resolveModel?: (id: string) => ModelProvider | undefined;
  /** Tools offered in addition to the subagent tools. */
  tools?: RuntimeTool[];
  /** Remembered approval rules (the editor keeps them per workspace and user); in memory when omitted. */
  approvalRules?: ApprovalRuleStore;
  systemPrompt?: string;
  workspace?: string;
  /**
   * The files the workspace tools work on: the editor passes its own implementation; by default
   * a Node one over `workspace` (none when no folder is open).
   */
  workspaceFiles?: WorkspacePort;
  /** Where each agent's change set is kept (in memory by default; the editor keeps it beside the sessions). */
  changeSets?: ChangeSetStorage;
  /**
   * The sessions folder, where each live root's live-state record is kept (`live/`), so the next
   * window puts the tree back (Runtime.restoreLive); none by default. Used only with a DurableSessionStore.
   */
  liveRecordsFolder?: string;
  /** How long changes gather before the live-state records are written (1 s by default). */
  liveRecordDelayMs?: number;
  /** The sandbox agents' commands run in (`arbor.sandbox.*`); off when omitted. */
  sandbox?: CommandSandbox;
  /** Session ids; unique across reloads by default. */
  newId?: (label: string) => string;
  /**
   * How long `dispose` waits for each aborted turn to record its end (15 s by default). A turn
   * that has not by then is left to a reload, which repairs it as interrupted: closing the
   * window never hangs on an agent.
   */
  shutdownWaitMs?: number;
}

export interface StartRootOptions {
  prompt: string;
  label?: string;
  limits?: RunLimitsInput;
  /**
   * Internal callers only: public entry points parse their input with the trust boundary's
   * parsePublicRunRequest, which cannot carry these keys. An invalid mode throws POLICY_INVALID.
   */
  context?: RunContext;
  planMode?: boolean;
  /** A model for this run only (the demo runs on the scripted model whatever the setting). */
  model?: ModelProvider;
  /**
   * A folder of this run's own (a git worktree): the run's agents read, edit and run commands
   * there instead of in the runtime's workspace. Their edits are not recorded in the change sets,
   * since the folder's own diff against its base is the record.
   */
  workspace?: RunWorkspace;
  /** Runs the root's turns instead of the model loop: an external agent (see src/core/external). */
  engine?: TurnEngine<Agent>;
  /** The agent definition the root is started with: its instructions, tools, limits and model apply. */
  definition?: AgentDefinition;
}

export type { ResumeRootOptions } from './resumeSession';
