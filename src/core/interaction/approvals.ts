import { isArborError, messageOf } from '../errors';
import type { ApprovalDecision, SessionLog } from '../sessions/types';
import { findMatchingRule, formatApprovalRule, MemoryApprovalRuleStore, ruleForSubject, type ApprovalRule, type ApprovalRulePattern, type ApprovalRuleStore, type StoredRuleScope } from './approvalRules';
import type { RunInteractionPolicy } from './policy';
import { MAX_QUESTION_LENGTH } from './questions';
import { MAX_DETAIL_LENGTH, type InteractionCaller, type UserInteractionService } from './userInteraction';

export type ApprovalAction = 'run-command' | 'edit-file' | 'vscode-tool' | 'network' | 'write-outside-workspace' | 'external-tool';

export interface ApprovalRequest {
  /** The exact live Agent asking (the interaction guards authenticate it). */
  agent: InteractionCaller;
  /** Created by another agent (one-shot or continuable): never asks, even in an interactive run. */
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

/**
 * The prompt's answers. `session` keeps its key for callers of the earlier API; it allows the
 * asking agent (that exact agent, until it ends in this window).
 */
export const APPROVAL_OPTIONS = Object.freeze({
  once: 'Allow once',
  session: 'Allow for this agent',
  workspace: 'Allow for this workspace',
  always: 'Allow always',
  deny: 'Deny',
});

const ACTION_WORDING: Record<ApprovalAction, string> = {
  'run-command': 'run a command',
  'edit-file': 'edit files',
  'vscode-tool': 'use a tool from another extension',
  network: 'access the network',
  'write-outside-workspace': 'write outside the workspace',
  'external-tool': 'use one of its own tools',
};

/** Where a person manages rules, named in every denial a rule could have prevented. */
const WHERE_RULES_LIVE = 'Arbor: Manage Approvals... or the setting arbor.approvals.rules';

/** Up to this length the action is also quoted in the question line itself. */
const QUESTION_DETAIL_LIMIT = 1_000;
/** How much of a longer action the question line quotes; the prompt's detail holds all of it. */
const QUESTION_EXCERPT_LENGTH = 200;
const LOG_DETAIL_LIMIT = 10_000;
/**
 * The longest action a human is asked to review. The prompt shows the whole action, never a
 * clipped one, so a longer request is denied without asking: nobody can approve what they
 * were not shown.
 */
export const MAX_REVIEWABLE_DETAIL = MAX_DETAIL_LENGTH;

export interface ApprovalServiceOptions {
  interaction: Pick<UserInteractionService, 'ask'>;
  /** Remembered rules (workspace, user, setting); in memory when omitted. */
  rules?: ApprovalRuleStore;
  now?: () => Date;
}

/**
 * The one seam for consent. An approval is a single three-option question through the same
 * `ask()` as every other human prompt, so it shares the question UI, the "waiting for you"
 * badge and the caller guards: an owned child that slips past `isSubagent` still cannot open
 * UI. Eligibility comes from the run's policy, which is resolved once, so the sync and async
 * paths of every tool decide alike.
 */
export class ApprovalService {
  private readonly interaction: Pick<UserInteractionService, 'ask'>;
  private readonly now: () => Date;
  readonly rules: ApprovalRuleStore;
  /**
   * Session id -> the exact agent the human answered and the actions allowed to it. A grant
   * lives as long as that agent does in this window: it is dropped when the agent ends
   * (`forgetSession`), and an agent that resumes the same session later is another object,
   * so it is asked again.
   */
  private readonly allowedForSession = new Map<string, { agent: InteractionCaller; actions: Set<ApprovalAction> }>();

  constructor(options: ApprovalServiceOptions) {
    this.interaction = options.interaction;
    this.now = options.now ?? (() => new Date());
    this.rules = options.rules ?? new MemoryApprovalRuleStore();
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

  /** Drops remembered "allow for this agent" grants; the runtime calls it when an agent ends. */
  forgetSession(sessionId: string): void {
    this.allowedForSession.delete(sessionId);
  }

  /** Drops the grants of this exact agent (not those of a later agent of the same session). */
  forgetAgent(agent: InteractionCaller): void {
    if (this.allowedForSession.get(agent.id)?.agent === agent) this.allowedForSession.delete(agent.id);
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
    if (req.policy.approvalEligibility({ isSubagent: req.isSubagent }) === 'deny') {
      return {
        decision: 'deny',
        suggestedRule,
        reason: req.isSubagent
          ? `Denied without asking: a delegated agent cannot get approval to ${wording}${what}.${ruleHint} Include what you needed in your final result; your parent receives it.`
          : `Denied without asking: this ${req.policy.mode} run is unattended, so nobody can approve a request to ${wording}${what}.${ruleHint} ` +
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
    const grant = this.allowedForSession.get(req.agent.id);
    if (grant && grant.agent === req.agent && grant.actions.has(req.action)) {
      return { decision: 'allow-session', reason: `Allowed: the human allowed this agent to ${wording} until it ends.` };
    }

    let selected: string[];
    let custom: string | undefined;
    const questions = [
      {
        id: 'approval',
        header: 'Approval',
        question: clip(questionLine(req.agent.label, wording, req.detail), MAX_QUESTION_LENGTH),
        options: [
          { label: APPROVAL_OPTIONS.once, description: 'Allow this request only.' },
          { label: APPROVAL_OPTIONS.session, description: `Allow this agent to ${wording} until it ends in this window (a resumed session asks again).` },
          ...(suggestedRule
            ? [
                { label: APPROVAL_OPTIONS.workspace, description: `Remember the rule "${clip(suggestedRule, 300)}" in this workspace; it also applies to unattended runs and subagents.` },
                { label: APPROVAL_OPTIONS.always, description: `Remember the rule "${clip(suggestedRule, 300)}" in every workspace; it also applies to unattended runs and subagents.` },
              ]
            : []),
          { label: APPROVAL_OPTIONS.deny, description: 'Refuse; the agent is told it was denied.' },
        ],
      },
    ];
    // Recorded while the prompt is open: a session resumed after a reload asks again for this call.
    if (req.toolCallId !== undefined) req.log.append({ type: 'question', at: this.now().toISOString(), questions, toolCallId: req.toolCallId, intent: 'approval' });
    try {
      const [answer] = await this.interaction.ask({
        agent: req.agent,
        signal: req.signal,
        intent: 'approval',
        // Whole, never clipped: the provider shows all of it before the human can answer.
        detail: req.detail,
        questions,
      });
      selected = answer.selected;
      custom = answer.custom;
      if (req.toolCallId !== undefined) req.log.append({ type: 'answer', at: this.now().toISOString(), answers: [answer] });
    } catch (err) {
      if (req.toolCallId !== undefined) req.log.append({ type: 'answer', at: this.now().toISOString(), error: isArborError(err) ? err.code : 'ASK_FAILED' });
      return { decision: 'deny', reason: deniedBecause(err), suggestedRule };
    }

    const scope: StoredRuleScope | undefined = selected.includes(APPROVAL_OPTIONS.always) ? 'user' : selected.includes(APPROVAL_OPTIONS.workspace) ? 'workspace' : undefined;
    if (scope && offered) return this.rememberAndAllow(offered, scope);
    if (selected.includes(APPROVAL_OPTIONS.session)) {
      let grant = this.allowedForSession.get(req.agent.id);
      if (!grant || grant.agent !== req.agent) this.allowedForSession.set(req.agent.id, (grant = { agent: req.agent, actions: new Set() }));
      grant.actions.add(req.action);
      return { decision: 'allow-session', reason: `Allowed by the human for this agent until it ends.` };
    }
    if (selected.includes(APPROVAL_OPTIONS.once)) {
      return { decision: 'allow-once', reason: 'Allowed once by the human.' };
    }
    if (custom !== undefined && selected.length === 0) {
      // Free text is not consent; pass it on so the agent can adjust its request.
      return { decision: 'deny', reason: `Denied: the human answered instead of allowing: ${JSON.stringify(custom)}` };
    }
    return { decision: 'deny', reason: 'Denied by the human.' };
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

/** The question: the action itself when short, else an excerpt that says where the rest is. */
function questionLine(label: string, wording: string, detail: string): string {
  if (detail.length <= QUESTION_DETAIL_LIMIT && !detail.includes('\n')) return `${label} wants to ${wording}: ${detail}`;
  return (
    `${label} wants to ${wording} (${detail.length} characters; read all of it in the preview before you answer): ` +
    `${clip(detail.split('\n')[0], QUESTION_EXCERPT_LENGTH)}`
  );
}

function deniedBecause(err: unknown): string {
  if (isArborError(err, 'ASK_CANCELLED')) return 'Denied: the human dismissed the approval prompt.';
  if (isArborError(err, 'ASK_ABORTED')) return 'Denied: the turn was cancelled before the human decided.';
  if (isArborError(err, 'NO_PROVIDER')) return 'Denied: no approval UI is available.';
  if (isArborError(err)) return `Denied without asking (${err.code}): ${err.message}`;
  return `Denied: the approval prompt failed (${messageOf(err)}).`;
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
