// The budget guard's news as the human sees it: a paused run asks Raise limit / Stop, an
// unattended run that ended BLOCKED says so, a runaway guard that paused an agent offers Resume,
// a branch whose own budget (a slice) is spent asks Raise limit / Stop for that branch alone.
// A part loaded by the first budget event or the first Raise limit (budgetEvents.ts).
// A pause is one notice per kind: while one is on screen, the next pause of its kind waits in
// "Waiting for you" only (Show What Is Waiting leads there).
import * as vscode from 'vscode';
import type { Runtime } from '../../core';
import type { Agent } from '../../core/agents';
import type { BudgetEvent, SliceLimits } from '../../core/budgets';
import { parseAgentArgument } from '../commandArguments';
import { reportError } from '../errorReporting';

export const RAISE_LIMIT = 'Raise limit';
export const STOP = 'Stop';
export const RESUME = 'Resume';
export const SHOW_WAITING = 'Show What Is Waiting';

/** The kinds of pause whose notice is on screen. */
const shown = new Set<'paused' | 'runaway'>();

/** Shows a pause's notice unless one of its kind is on screen; Show What Is Waiting opens the inbox. */
function notice(kind: 'paused' | 'runaway', message: string, ...actions: string[]): Thenable<string | undefined> {
  if (shown.has(kind)) return Promise.resolve(undefined);
  shown.add(kind);
  return vscode.window.showWarningMessage(message, ...actions, SHOW_WAITING).then((pick) => {
    shown.delete(kind);
    if (pick === SHOW_WAITING) void vscode.commands.executeCommand('arbor.showWaiting');
    return pick;
  });
}

export function showBudgetEvent(event: BudgetEvent, runtime: Runtime, log: vscode.LogOutputChannel, openTranscript: (agentId: string) => void): void {
  switch (event.type) {
    case 'warning': {
      const m = event.status.highest;
      log.warn(`Run of "${event.root?.label ?? 'an agent'}" is at ${m ? `${Math.floor(m.fraction * 100)}% of its budget: ${m.text}` : 'its budget warning'}`);
      return;
    }
    case 'paused': {
      const name = event.root?.label ?? 'A run';
      log.warn(`"${name}" paused: ${event.reason}`);
      void notice('paused', `Arbor: "${name}" is paused: ${event.reason}. Every agent of the run keeps its work.`, RAISE_LIMIT, STOP)
        .then((pick) => {
          if (pick !== RAISE_LIMIT) {
            if (pick === STOP) log.info(`"${name}" stays stopped; send one of its agents a message after raising arbor.limits to go on.`);
            return;
          }
          try {
            const limits = runtime.budgets.raise(event.run);
            log.info(`Raised the limits of "${name}" (tokens ${limits.maxTokens}, turns ${limits.maxRunTurns}, model calls ${limits.maxModelCalls}, wall time ${limits.maxWallTimeSeconds}s, cost ${limits.maxCost}); the run goes on`);
          } catch (err) {
            reportError(log, `Could not raise the limits of "${name}"`, err);
          }
        });
      return;
    }
    case 'blocked': {
      const root = event.root;
      log.warn(`"${root?.label ?? 'A run'}" ended BLOCKED: ${event.reason}`);
      void vscode.window.showWarningMessage(`Arbor: "${root?.label ?? 'An unattended run'}" ended BLOCKED: ${event.reason}.`, 'Open Transcript').then((pick) => {
        if (pick && root) openTranscript(root.id);
      });
      return;
    }
    case 'runaway': {
      const { agent, reason, hold } = event;
      log.warn(`Runaway guard on "${agent.label}": ${reason}${hold ? ' (paused)' : ''}`);
      if (!hold) return;
      void notice('runaway', `Arbor: "${agent.label}" was paused: ${reason}.`, RESUME, STOP).then((pick) => {
        if (pick === RESUME) runtime.budgets.resumeAgent(agent);
      });
      return;
    }
    case 'resumed':
      log.info(`"${event.root?.label ?? 'A run'}" goes on with raised limits`);
      return;
    case 'slice_paused': {
      const name = event.agent.label;
      log.warn(`The branch of "${name}" paused: ${event.reason}`);
      void vscode.window.showWarningMessage(`Arbor: the branch of "${name}" is paused: ${event.reason}. The rest of the run goes on.`, RAISE_LIMIT, STOP).then((pick) => {
        if (pick === RAISE_LIMIT) raiseSlice(runtime, log, event.agent);
      });
      return;
    }
    case 'slice_blocked':
      log.warn(`The branch of "${event.agent.label}" ended BLOCKED: ${event.reason}`);
      return;
    case 'slice_resumed':
      log.info(`The branch of "${event.agent.label}" goes on with its raised budget`);
      return;
    case 'agent_resumed':
      return;
  }
}

/** Raise limit on an agent's node (or from the palette, on the agent picked): that agent's slice only. */
export async function raiseBranchLimit(runtime: Runtime, log: vscode.LogOutputChannel, node: unknown): Promise<SliceLimits | undefined> {
  const title = 'Arbor: Raise limit';
  let agent: Agent | undefined;
  try {
    agent = parseAgentArgument(runtime, title, node);
  } catch (err) {
    reportError(log, title, err);
    return undefined;
  }
  if (!agent) {
    const sliced = runtime.agents.all().filter((a) => runtime.budgets.slices.ownSliceOf(a));
    if (sliced.length === 0) {
      void vscode.window.showInformationMessage('Arbor: no live agent was started with a budget of its own; raise the run\'s limit (arbor.limits) instead.');
      return undefined;
    }
    agent = (await vscode.window.showQuickPick(sliced.map((a) => ({ label: a.label, description: a.id, agent: a })), { title }))?.agent;
  }
  return agent && raiseSlice(runtime, log, agent);
}

function raiseSlice(runtime: Runtime, log: vscode.LogOutputChannel, agent: Agent): SliceLimits | undefined {
  try {
    const limits = runtime.budgets.slices.raise(agent);
    log.info(`Raised the budget of "${agent.label}" to ${JSON.stringify(limits)} (0: no limit); its branch goes on`);
    return limits;
  } catch (err) {
    reportError(log, `Could not raise the budget of "${agent.label}"`, err);
    return undefined;
  }
}
