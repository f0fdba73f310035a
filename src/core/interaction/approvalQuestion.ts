/**
 * What an approval prompt says and what its answers mean (loaded with the first prompt, in the
 * approval-asking part). The prompt names who asks (label,
 * kind, definition, place in the tree) so a person deciding for one of ten agents knows which;
 * each answer has one scope, read back by `readApprovalAnswer` and nowhere else.
 */
import type { Answer, Question } from '../sessions/types';
import { branchPath, type AgentLineage, type ApprovalAsker } from './approvalGrants';
import { ACTION_WORDING, APPROVAL_OPTIONS, clip, type ApprovalAction } from './approvalWording';
import { MAX_QUESTION_LENGTH } from './questions';

const KIND_WORDING: Record<string, string> = {
  root: 'root agent',
  'one-shot': 'one-shot subagent',
  continuable: 'subagent',
};

/** Up to this length the action is also quoted in the question line itself. */
const QUESTION_DETAIL_LIMIT = 1_000;
/** How much of a longer action the question line quotes; the prompt's detail holds all of it. */
const QUESTION_EXCERPT_LENGTH = 200;

/** Who asks, in words: "Researcher (one-shot subagent, definition "researcher", in Demo lead › Researcher)". */
export function describeAsker(agent: ApprovalAsker, lineage: AgentLineage | undefined): string {
  const path = branchPath(agent, lineage);
  const facts = [
    ...(agent.kind !== undefined ? [KIND_WORDING[agent.kind] ?? agent.kind] : []),
    ...(agent.definition ? [`definition "${agent.definition.name}"`] : []),
    ...(path !== agent.label ? [`in ${path}`] : []),
  ];
  return facts.length ? `${agent.label} (${facts.join(', ')})` : agent.label;
}

export interface ApprovalQuestionInput {
  asker: string;
  label: string;
  action: ApprovalAction;
  detail: string;
  /** The rule "Allow for this workspace" and "Allow always" would add; without one they are not offered. */
  suggestedRule?: string;
}

/** The one question of an approval prompt, its answers in order from narrowest to widest, then the denials. */
export function approvalQuestion(input: ApprovalQuestionInput): Question {
  const wording = ACTION_WORDING[input.action];
  const rule = input.suggestedRule !== undefined ? clip(input.suggestedRule, 300) : undefined;
  return {
    id: 'approval',
    header: 'Approval',
    question: clip(questionLine(input.asker, wording, input.detail), MAX_QUESTION_LENGTH),
    options: [
      { label: APPROVAL_OPTIONS.once, description: 'Allow this request only.' },
      { label: APPROVAL_OPTIONS.session, description: clip(`Allow ${input.label} to ${wording} until it ends in this window; not the agents it starts (a resumed session asks again).`, 500) },
      { label: APPROVAL_OPTIONS.branch, description: clip(`Allow ${input.label} and every agent it starts, now or later, to ${wording} until ${input.label} ends.`, 500) },
      ...(rule !== undefined
        ? [
            { label: APPROVAL_OPTIONS.workspace, description: `Remember the rule "${rule}" in this workspace; it also applies to unattended runs and subagents.` },
            { label: APPROVAL_OPTIONS.always, description: `Remember the rule "${rule}" in every workspace; it also applies to unattended runs and subagents.` },
          ]
        : []),
      { label: APPROVAL_OPTIONS.deny, description: 'Refuse; the agent is told it was denied.' },
      { label: APPROVAL_OPTIONS.denyWhy, description: 'Refuse and say why; the agent reads your words.' },
    ],
  };
}

export type ApprovalAnswer =
  | { kind: 'once' | 'agent' | 'branch' | 'workspace' | 'always' }
  | { kind: 'deny'; words?: string };

/**
 * What the person chose. Text with no choice (a UI that offers a free answer) is a denial with
 * those words, never consent; so is "Deny, and tell it why".
 */
export function readApprovalAnswer(answer: Answer): ApprovalAnswer {
  const chose = (label: string): boolean => answer.selected.includes(label);
  const words = answer.custom !== undefined && answer.custom.trim() !== '' ? answer.custom.trim() : undefined;
  if (chose(APPROVAL_OPTIONS.deny) || chose(APPROVAL_OPTIONS.denyWhy) || answer.selected.length === 0) return words !== undefined ? { kind: 'deny', words } : { kind: 'deny' };
  if (chose(APPROVAL_OPTIONS.always)) return { kind: 'always' };
  if (chose(APPROVAL_OPTIONS.workspace)) return { kind: 'workspace' };
  if (chose(APPROVAL_OPTIONS.branch)) return { kind: 'branch' };
  if (chose(APPROVAL_OPTIONS.session)) return { kind: 'agent' };
  if (chose(APPROVAL_OPTIONS.once)) return { kind: 'once' };
  return { kind: 'deny' };
}

/** The question: the action itself when short, else an excerpt that says where the rest is. */
function questionLine(asker: string, wording: string, detail: string): string {
  if (detail.length <= QUESTION_DETAIL_LIMIT && !detail.includes('\n')) return `${asker} wants to ${wording}: ${detail}`;
  return (
    `${asker} wants to ${wording} (${detail.length} characters; read all of it in the preview before you answer): ` +
    `${clip(detail.split('\n')[0], QUESTION_EXCERPT_LENGTH)}`
  );
}
