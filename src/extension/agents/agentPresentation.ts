// How one live agent is shown in the Agents view. Pure (no 'vscode' import) so it is
// unit-tested in plain Node; agentsTree.ts turns it into a TreeItem.
import type { Agent } from '../../core/agents';

export type AgentState = 'running' | 'stopping' | 'waiting' | 'parked' | 'idle';

export interface AgentPresentation {
  state: AgentState;
  /** `agent:<state>:<kind>`; package.json menus match it to show Stop and Answer where they apply. */
  contextValue: string;
  /** Codicon id. */
  icon: string;
  description: string;
  tooltip: string;
}

export interface PresentationInput {
  agent: Agent;
  /** The agent has a question open or queued for the human. */
  waiting: boolean;
  /** Tokens used by this agent and every live agent below it. */
  treeTokens: number;
  /** Live subagents below this one. */
  descendants: number;
  now: number;
  /** The label of the agent whose turn holds a one-shot agent (its runtime owner). */
  holder?: string;
}

export function presentAgent({ agent, waiting, treeTokens, descendants, now, holder }: PresentationInput): AgentPresentation {
  const state: AgentState = waiting
    ? 'waiting'
    : agent.stopping
      ? 'stopping'
      : agent.status === 'running'
        ? 'running'
        : agent.isParked
          ? 'parked'
          : 'idle';
  const own = agent.usage.inputTokens + agent.usage.outputTokens;
  const stateText =
    state === 'waiting'
      ? 'waiting for you'
      : state === 'stopping'
        ? 'stopping…'
        : state === 'parked'
          ? `stopped, ${agent.pendingCount} queued`
          : state === 'running'
            ? `running ${formatElapsed(now - (agent.turnStartedAt ?? now))}`
            : agent.lastTurnEnd?.reason === 'aborted'
              ? 'stopped'
              : 'idle';
  const tokens = descendants > 0 && treeTokens !== own ? `${formatTokens(own)} tok (tree ${formatTokens(treeTokens)})` : `${formatTokens(own)} tok`;
  // A one-shot node has no Stop; its description says whose it is, so the missing action explains itself.
  const kind = agent.kind === 'one-shot' ? `one-shot${holder ? ` for ${holder}` : ''}, no Stop` : kindText(agent.kind);
  const parts = [kind, stateText, tokens];
  if (agent.engine) parts.push(`external: ${agent.engine.name}`);
  if (agent.run.workspace) parts.push('in worktree');
  if (agent.sessionProblem) parts.push('session not fully saved');
  const description = parts.join(' · ');

  const lines = [
    `**${escapeMarkdown(agent.label)}**: ${kindText(agent.kind)} agent, ${stateText}`,
    '',
    `- Session: \`${agent.id}\``,
  ];
  if (agent.log.header.parentSession) lines.push(`- Parent session: \`${agent.log.header.parentSession}\``);
  lines.push(
    `- Turns: ${agent.turnCount}${agent.lastTurnEnd ? ` (last ended: ${agent.lastTurnEnd.reason}${agent.lastTurnEnd.cause ? `, ${agent.lastTurnEnd.cause}` : ''})` : ''}`,
    `- Tokens: ${agent.usage.inputTokens} in, ${agent.usage.outputTokens} out${descendants > 0 ? `; ${treeTokens} with its ${descendants} live subagent(s)` : ''}`,
    `- Mode: ${agent.log.header.interactionMode}${agent.planMode ? ', plan mode' : ''}`,
  );
  if (agent.run.workspace) lines.push(`- Works in its own worktree: \`${agent.run.workspace.folder}\` (your files change only when you Keep its work)`);
  if (agent.sessionProblem) lines.push(`- Session not fully saved (${agent.sessionProblem.code}): ${escapeMarkdown(agent.sessionProblem.message)}`);
  if (agent.pendingCount > 0) lines.push(`- Queued messages: ${agent.pendingCount}${agent.isParked ? ' (parked until you send a message)' : ''}`);
  if (agent.kind === 'one-shot') {
    const whose = holder ? `"${escapeMarkdown(holder)}", the agent waiting for its result` : 'the agent waiting for its result';
    lines.push('', `No Stop of its own: a one-shot subagent belongs to ${whose}. Stop that agent to stop this one.`);
  } else if (agent.kind === 'continuable') {
    lines.push('', 'Stop ends only its current turn: it keeps its conversation and queued messages, and its subagents keep running.');
  }

  return {
    state,
    contextValue: `agent:${state}:${agent.kind}`,
    icon: iconFor(state, agent),
    description,
    tooltip: lines.join('\n'),
  };
}

function iconFor(state: AgentState, agent: Agent): string {
  switch (state) {
    case 'running':
      return 'loading~spin';
    case 'stopping':
      return 'debug-stop';
    case 'waiting':
      return 'question';
    case 'parked':
      return 'debug-pause';
    default:
      return agent.lastTurnEnd?.reason === 'error' ? 'error' : agent.lastTurnEnd?.reason === 'budget' || agent.sessionProblem ? 'warning' : 'circle-outline';
  }
}

export function kindText(kind: Agent['kind']): string {
  return kind === 'one-shot' ? 'one-shot' : kind === 'continuable' ? 'continuable' : 'root';
}

export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
