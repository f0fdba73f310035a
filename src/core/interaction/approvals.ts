import { messageOf } from '../errors';
import type { ApprovalDecision, SessionLog } from '../sessions/types';
import { findMatchingRule, formatApprovalRule, MemoryApprovalRuleStore, ruleForSubject, type ApprovalRule, type ApprovalRulePattern, type ApprovalRuleStore, type StoredRuleScope } from './approvalRules';
import type { RunInteractionPolicy } from './policy';
import { Emitter, type Disposable } from '../events';
import { approvalAskingPart } from '../parts';
import type { AgentLineage, ApprovalAsker, ApprovalGrant, ApprovalGrants } from './approvalGrants';
import { ACTION_WORDING, clip, type ApprovalAction } from './approvalWording';
import { MAX_DETAIL_LENGTH, type UserInteractionService } from './userInteraction';

export { APPROVAL_OPTIONS, type ApprovalAction } from './approvalWording';

/** The live grants as Manage Approvals reads them: listed, revoked, followed. */
export interface GrantList {
  grants(): readonly ApprovalGrant[];
  revoke(id: string): boolean;
  onDidChange(listener: () => void): Disposable;
}

/**
 * Whether a subagent's approval in an interactive run may wait for the person (`ask`) or is
 * denied at once (`deny`, the default) with the rule that would allow it: arbor.approvals.subagents.
 */
export type SubagentApprovals = 'deny' | 'ask';

export interface ApprovalRequest {
  /** The exact live Agent asking (the interaction guards authenticate it); its kind and definition are named in the prompt. */
  agent: ApprovalAsker;
  /**
   * Created by another agent (one-shot or continuable): asks only where arbor.approvals.subagents
   * is `ask` and the run's person is there; otherwise denied at once.
   */
  isSubagent: boolean;
  policy: RunInteractionPolicy;
  action: ApprovalAction;
  /** What exactly would happen: the command line, the host, the path. */
  detail: string;
  /** What a remembered rule matches: the workspace-relative path for edit-file, the command line for run-command. */
  subject?: string;
  signal?: AbortSignal;
  /** Where the decision is recorded (the asking agent's session log). */
  log: SessionLog;
  /**
   * The tool call that needs the approval. When the human is asked, the question is recorded
   * with it, so a session resumed while the prompt was open asks again for that call.
   */
  toolCallId?: string;
  /**
   * The action is a command that will run sandboxed and `arbor.sandbox.autoAllow` is on: when no
   * rule allows it, it is allowed without asking (in every kind of run), since the sandbox bounds it.
   */
  sandboxAutoAllow?: boolean;
}

export interface ApprovalOutcome {
  decision: ApprovalDecision;
  /** Why, in words the tool can pass to the model and the log keeps. */
  reason: string;
  /** The remembered rule that allowed the action, or that the human just created. */
  rule?: ApprovalRule;
  /** On a denial: the rule that would allow this action, as a person would write it. */
  suggestedRule?: string;
}

/** Where a person manages rules, named in every denial a rule could have prevented. */
const WHERE_RULES_LIVE = 'Arbor: Manage Approvals... or the setting arbor.approvals.rules';

const LOG_DETAIL_LIMIT = 10_000;
/**
 * The longest action a human is asked to review. The prompt shows the whole action, never a
 * clipped one, so a longer request is denied without asking: nobody can approve what they
 * were not shown.
 */
export const MAX_REVIEWABLE_DETAIL = MAX_DETAIL_LENGTH;

export interface ApprovalServiceOptions {
  /** `askHeldApproval` and `hasProvider` let a subagent's approval wait for the person (`ask`); without them it is denied. */
  interaction: Pick<UserInteractionService, 'ask'> & Partial<Pick<UserInteractionService, 'askHeldApproval' | 'hasProvider'>>;
  /** Remembered rules (workspace, user, setting); in memory when omitted. */
  rules?: ApprovalRuleStore;
  /** The live tree (the agent registry): where branch grants and the prompt's path are read. */
  lineage?: AgentLineage;
  now?: () => Date;
}

/**
 * The one seam for consent. An approval is a single question through the interaction service,
 * so it shares the question UI, the "waiting for you" badge and the caller guards: an owned
 * child that slips past `isSubagent` still cannot open UI through `ask()`. Order: rules, the
 * sandbox's auto-allow, the run's policy (an unattended run asks nobody), the person's grants
 * (agent, branch), then the subagent setting, then the person. Eligibility comes from the run's
 * policy, which is resolved once, so the sync and async paths of every tool decide alike.
 */
export class ApprovalService {
  private readonly interaction: ApprovalServiceOptions['interaction'];
  private readonly now: () => Date;
  private readonly lineage: AgentLineage | undefined;
  readonly rules: ApprovalRuleStore;
  /** "Allow for this agent" and "... and the agents it starts": made with the first grant, each ending with its holder (approvalGrants.ts). */
  private grantStore: ApprovalGrants | undefined;
  private readonly grantChanges = new Emitter<void>();
  /** The live grants, for Manage Approvals. */
  readonly grants: GrantList = {
    grants: () => this.grantStore?.grants() ?? [],
    revoke: (id) => this.grantStore?.revoke(id) ?? false,
    onDidChange: (listener) => this.grantChanges.on(listener),
  };
  /** arbor.approvals.subagents; the editor sets it as the setting changes. */
  subagents: SubagentApprovals = 'deny';

  constructor(options: ApprovalServiceOptions) {
    this.interaction = options.interaction;
    this.now = options.now ?? (() => new Date());
    this.rules = options.rules ?? new MemoryApprovalRuleStore();
    this.lineage = options.lineage;
  }

  async request(req: ApprovalRequest): Promise<ApprovalOutcome> {
    const outcome = await this.decide(req);
    req.log.append({
      type: 'approval',
      at: this.now().toISOString(),
      action: req.action,
      detail: clip(req.detail, LOG_DETAIL_LIMIT),
      decision: outcome.decision,
      reason: outcome.reason,
      ...(outcome.rule ? { rule: formatApprovalRule(outcome.rule), ruleScope: outcome.rule.scope } : {}),
    });
    return outcome;
  }

  /** Ends the grants of every agent of this session id; kept for callers of the earlier API. */
  forgetSession(sessionId: string): void {
    this.grantStore?.forgetSession(sessionId);
  }

  /** Ends the grants this exact agent holds (its own and its branch's); the runtime calls it when an agent ends. */
  forgetAgent(agent: object): void {
    this.grantStore?.forgetAgent(agent);
  }

  private async decide(req: ApprovalRequest): Promise<ApprovalOutcome> {
    const wording = ACTION_WORDING[req.action];
    const matched = this.matchingRule(req);
    if (matched) {
      return { decision: 'allow-rule', reason: `Allowed without asking by the ${SCOPE_WORDING[matched.scope]} rule "${formatApprovalRule(matched)}".`, rule: matched };
    }
    if (req.sandboxAutoAllow && req.action === 'run-command') {
      return { decision: 'allow-rule', reason: 'Allowed without asking: it runs sandboxed (arbor.sandbox.autoAllow).'};
    }
    const offered = ruleForSubject(req.action, req.subject);
    const suggestedRule = offered ? formatApprovalRule(offered) : undefined;
    const what = req.subject !== undefined && req.subject !== '' ? ` (${JSON.stringify(clip(req.subject, 200))})` : '';
    const ruleHint = suggestedRule
      ? ` No approval rule allows it; the rule "${suggestedRule}" (${WHERE_RULES_LIVE}) would let it run without asking.`
      : '';
    if (req.policy.unattended) {
      return {
        decision: 'deny',
        suggestedRule,
        reason:
          `Denied without asking: this ${req.policy.mode} run is unattended, so nobody can approve a request to ${wording}${what}.${ruleHint} ` +
          'Do not wait for approval: carry on without this action and list it in your final result.',
      };
    }
    if (req.detail.length > MAX_REVIEWABLE_DETAIL) {
      return {
        decision: 'deny',
        suggestedRule,
        reason: `Denied without asking: the request to ${wording} is ${req.detail.length} characters long, more than the ${MAX_REVIEWABLE_DETAIL} a person can be shown to review. Split it into smaller steps.`,
      };
    }
    const granted = this.grantStore && approvalAskingPart().coveredByGrant(this.grantStore, req.agent, req.action);
    if (granted) return granted;
    const humanPresent = this.interaction.hasProvider === true && this.interaction.askHeldApproval !== undefined;
    if (req.isSubagent && req.policy.approvalEligibility({ isSubagent: true, subagents: this.subagents, humanPresent }) === 'deny') {
      return {
        decision: 'deny',
        suggestedRule,
        reason: `Denied without asking: a delegated agent cannot get approval to ${wording}${what}.${ruleHint} Include what you needed in your final result; your parent receives it.`,
      };
    }
    return this.askThePerson(req, offered, suggestedRule);
  }

  private async askThePerson(req: ApprovalRequest, offered: ApprovalRulePattern | undefined, suggestedRule: string | undefined): Promise<ApprovalOutcome> {
    const seam = {
      interaction: this.interaction,
      lineage: this.lineage,
      now: this.now,
      grants: () => (this.grantStore ??= approvalAskingPart().newGrants(this.lineage, () => this.now().getTime(), () => this.grantChanges.fire())),
    };
    const outcome = await approvalAskingPart().askThePerson(seam, req, offered ? suggestedRule : undefined);
    return 'remember' in outcome ? this.rememberAndAllow(offered!, outcome.remember) : outcome;
  }

  /** The first rule in force that allows the request; a store that fails to answer allows nothing. */
  private matchingRule(req: ApprovalRequest): ApprovalRule | undefined {
    let rules: readonly ApprovalRule[];
    try {
      rules = this.rules.rules();
    } catch {
      // A store that fails to answer allows nothing: the request goes on to the policy and the human.
      return undefined;
    }
    return findMatchingRule(rules, req.action, req.subject);
  }

  private async rememberAndAllow(pattern: ApprovalRulePattern, scope: StoredRuleScope): Promise<ApprovalOutcome> {
    const rule: ApprovalRule = { ...pattern, scope };
    const decision = scope === 'user' ? 'allow-always' : 'allow-workspace';
    try {
      await this.rules.remember(pattern, scope);
    } catch (err) {
      return { decision, rule, reason: `Allowed by the human, but the rule "${formatApprovalRule(pattern)}" could not be saved (${messageOf(err)}).` };
    }
    return { decision, rule, reason: `Allowed by the human, who added the ${SCOPE_WORDING[scope]} rule "${formatApprovalRule(pattern)}".` };
  }
}

const SCOPE_WORDING: Record<ApprovalRule['scope'], string> = {
  workspace: 'workspace',
  user: 'always (every workspace)',
  setting: 'arbor.approvals.rules setting',
};
