/**
 * The human-interaction seam: the one way agents reach the human (questions, plan approval,
 * consent), the per-run policy that says whether a human is there at all, and the trust
 * boundary that keeps public callers from choosing that policy.
 */
export {
  UserInteractionService,
  DELEGATED_CALLER_MESSAGE,
  CALLER_NOT_LIVE_MESSAGE,
  MAX_DETAIL_LENGTH,
  type LiveAgentDirectory,
  type InteractionCaller,
  type AskIntent,
  type AskRequest,
  type InteractionPrompt,
  type InteractionProvider,
  type PendingInteraction,
  type PendingOutcome,
  type PendingChange,
  type UserInteractionServiceOptions,
} from './userInteraction';
export {
  askUserQuestionArgsSchema,
  questionBatchSchema,
  questionSchema,
  questionOptionSchema,
  checkAnswers,
  MAX_QUESTIONS,
  MAX_OPTIONS,
  MAX_HEADER_LENGTH,
} from './questions';
export {
  resolveInteractionPolicy,
  isInteractionMode,
  INTERACTION_MODES,
  ASK_USER_QUESTION_TOOL,
  EXIT_PLAN_MODE_TOOL,
  type RunContext,
  type RunInteractionPolicy,
  type PolicySource,
  type ApprovalEligibility,
} from './policy';
export {
  ApprovalService,
  APPROVAL_OPTIONS,
  MAX_REVIEWABLE_DETAIL,
  type SubagentApprovals,
  type GrantList,
  type ApprovalAction,
  type ApprovalRequest,
  type ApprovalOutcome,
  type ApprovalServiceOptions,
} from './approvals';
export {
  APPROVAL_RULE_KINDS,
  MemoryApprovalRuleStore,
  approvalRuleTextSchema,
  findMatchingRule,
  formatApprovalRule,
  parseApprovalRule,
  ruleForSubject,
  ruleKindOf,
  ruleMatches,
  type ApprovalRule,
  type ApprovalRuleKind,
  type ApprovalRulePattern,
  type ApprovalRuleScope,
  type ApprovalRuleStore,
  type StoredRuleScope,
} from './approvalRules';
export { ApprovalGrants, branchPath, inBranch, type AgentLineage, type ApprovalAsker, type ApprovalGrant, type GrantScope } from './approvalGrants';
export { ACTION_WORDING } from './approvalWording';
export { describeAsker, readApprovalAnswer, type ApprovalAnswer } from './approvalQuestion';
export { commandSubject, shellWord, type CommandToRun, type CommandSubject } from './commandLine';
export {
  parsePublicRunRequest,
  parsePublicRunRequestStrict,
  parsePublicRunRequestFrom,
  persistableRunContext,
  publicRunRequestSchema,
  INTERNAL_RUN_KEYS,
  PUBLIC_ENTRY_INTERNAL_KEYS,
  type InternalRunKey,
  type PublicEntryPoint,
  type PublicRunRequest,
  type ParseOptions,
  type PersistableRunContext,
} from './trustBoundary';
export { parseRunLinkQuery, RUN_LINK_PARAMETERS, type RunLinkQuery } from './runLink';
export { askTheHuman, type AskingContext, type AskingOutcome, type HumanQuestion } from './asking';
export { blockedItems } from './blockedItems';
