/**
 * The approval part: asking the person and what their answer grants. Loaded by the first
 * approval that reaches a person or the first grant looked up (src/core/parts.ts), so a run
 * whose actions rules decide, or that is unattended, never loads it.
 *
 * The prompt names who asks (approvalQuestion.ts); a subagent's approval reaches the person
 * only through `askHeldApproval`, and only where the seam already decided it may (approvals.ts).
 */
import { isArborError, messageOf } from '../errors';
import type { ApprovalDecision, SessionLog } from '../sessions/types';
import { ApprovalGrants, type AgentLineage, type ApprovalAsker, type ApprovalGrant } from './approvalGrants';
import { approvalQuestion, describeAsker, readApprovalAnswer } from './approvalQuestion';
import { ACTION_WORDING, type ApprovalAction } from './approvalWording';
import type { UserInteractionService } from './userInteraction';

/** What asking needs from the seam. */
export interface AskingSeam {
  interaction: Pick<UserInteractionService, 'ask'> & Partial<Pick<UserInteractionService, 'askHeldApproval'>>;
  lineage: AgentLineage | undefined;
  now(): Date;
  /** The seam's grants, made now if there are none yet. */
  grants(): ApprovalGrants;
}

/** The person chose to remember the offered rule here: the seam, which keeps the rules, adds it. */
export interface RememberRule {
  remember: 'workspace' | 'user';
}

/** The request as asking reads it (approvals.ts's ApprovalRequest). */
export interface AskedRequest {
  agent: ApprovalAsker;
  isSubagent: boolean;
  action: ApprovalAction;
  detail: string;
  signal?: AbortSignal;
  log: SessionLog;
  toolCallId?: string;
}

export interface AskedOutcome {
  decision: ApprovalDecision;
  reason: string;
  suggestedRule?: string;
}

export function newGrants(lineage: AgentLineage | undefined, now: () => number, onChange: () => void): ApprovalGrants {
  return new ApprovalGrants(lineage, now, onChange);
}

/** The outcome of an action a live grant covers, or undefined when none does. */
export function coveredByGrant(grants: ApprovalGrants, agent: ApprovalAsker, action: ApprovalAction): AskedOutcome | undefined {
  const grant = grants.covering(agent, action);
  return grant ? grantedBy(grant, agent, ACTION_WORDING[action]) : undefined;
}

/** Asks the person; the question and its answer are recorded with the tool call, so a resumed session asks again. */
export async function askThePerson(seam: AskingSeam, req: AskedRequest, suggestedRule: string | undefined): Promise<AskedOutcome | RememberRule> {
  const asker = describeAsker(req.agent, seam.lineage);
  const questions = [approvalQuestion({ asker, label: req.agent.label, action: req.action, detail: req.detail, suggestedRule })];
  const at = (): string => seam.now().toISOString();
  if (req.toolCallId !== undefined) req.log.append({ type: 'question', at: at(), questions, toolCallId: req.toolCallId, intent: 'approval' });
  let answer;
  try {
    // Whole, never clipped: the provider shows all of it before the human can answer.
    const ask = { agent: req.agent, signal: req.signal, intent: 'approval' as const, detail: req.detail, questions, asker };
    [answer] = req.isSubagent && seam.interaction.askHeldApproval ? await seam.interaction.askHeldApproval(ask) : await seam.interaction.ask(ask);
    if (req.toolCallId !== undefined) req.log.append({ type: 'answer', at: at(), answers: [answer] });
  } catch (err) {
    if (req.toolCallId !== undefined) req.log.append({ type: 'answer', at: at(), error: isArborError(err) ? err.code : 'ASK_FAILED' });
    return { decision: 'deny', reason: deniedBecause(err), suggestedRule };
  }
  const chosen = readApprovalAnswer(answer);
  switch (chosen.kind) {
    case 'always':
    case 'workspace':
      // Offered only with a rule for the subject (approvalQuestion); a UI that sends it anyway allows nothing.
      if (suggestedRule !== undefined) return { remember: chosen.kind === 'always' ? 'user' : 'workspace' };
      return { decision: 'deny', reason: 'Denied: no rule can name this action, so it cannot be remembered; ask again.', suggestedRule };
    case 'branch':
      seam.grants().add('branch', req.agent, req.action);
      return { decision: 'allow-branch', reason: 'Allowed by the human for this agent and the agents it starts, until it ends.' };
    case 'agent':
      seam.grants().add('agent', req.agent, req.action);
      return { decision: 'allow-session', reason: 'Allowed by the human for this agent until it ends.' };
    case 'once':
      return { decision: 'allow-once', reason: 'Allowed once by the human.' };
    case 'deny':
      // The person's words are not consent; they reach the agent so it can change course.
      return chosen.words !== undefined
        ? { decision: 'deny', reason: `Denied by the human, who said: ${JSON.stringify(chosen.words)}`, suggestedRule }
        : { decision: 'deny', reason: 'Denied by the human.', suggestedRule };
  }
}

/** An action a grant covers: whose grant, and how far it reaches. */
function grantedBy(grant: ApprovalGrant, agent: object, wording: string): AskedOutcome {
  if (grant.scope === 'agent') return { decision: 'allow-session', reason: `Allowed: the human allowed this agent to ${wording} until it ends.` };
  const whose = grant.holder === agent ? 'this agent' : `"${grant.holder.label}"`;
  return { decision: 'allow-branch', reason: `Allowed: the human allowed ${whose} and the agents it starts to ${wording} until it ends.` };
}

function deniedBecause(err: unknown): string {
  if (isArborError(err, 'ASK_CANCELLED')) return 'Denied: the human dismissed the approval prompt.';
  if (isArborError(err, 'ASK_ABORTED')) return 'Denied: the turn was cancelled before the human decided.';
  if (isArborError(err, 'NO_PROVIDER')) return 'Denied: no approval UI is available.';
  if (isArborError(err)) return `Denied without asking (${err.code}): ${err.message}`;
  return `Denied: the approval prompt failed (${messageOf(err)}).`;
}
