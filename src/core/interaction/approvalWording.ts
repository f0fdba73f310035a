/**
 * The words of the approval seam that every run needs, even one that never asks anyone: the
 * actions, how denials name them, and the prompt's answers (which the editor's prompt reads to
 * know the answer that takes text). What only a prompt needs is in approvalQuestion.ts, loaded
 * with the first prompt.
 */
export type ApprovalAction = 'run-command' | 'edit-file' | 'vscode-tool' | 'network' | 'write-outside-workspace' | 'external-tool';

/**
 * The prompt's answers. `session` keeps its key for callers of the earlier API; it allows the
 * asking agent (that exact agent, until it ends in this window). `denyWhy` is the one answer that
 * takes text: the person's words go to the agent in the denial.
 */
export const APPROVAL_OPTIONS = Object.freeze({
  once: 'Allow once',
  session: 'Allow for this agent',
  branch: 'Allow for this agent and the agents it starts',
  workspace: 'Allow for this workspace',
  always: 'Allow always',
  deny: 'Deny',
  denyWhy: 'Deny, and tell it why',
});

export const ACTION_WORDING: Record<ApprovalAction, string> = {
  'run-command': 'run a command',
  'edit-file': 'edit files',
  'vscode-tool': 'use a tool from another extension',
  network: 'access the network',
  'write-outside-workspace': 'write outside the workspace',
  'external-tool': 'use one of its own tools',
};

export function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}
