// How one live agent is shown in the Agents view and in the pickers that name agents. Pure (no
// 'vscode' import) so it is unit-tested in plain Node; agentRows.ts caches what the view shows,
// agentsTree.ts turns it into a TreeItem.
import { activityOf, describeHold, describeTurnEnd, holdAt, isQueueHold, primaryHold, type Agent, type AgentRegistry, type TurnEndTone } from '../../core/agents';
import { formatCost } from '../../core/budgets';
import { describeDoing, type DoingInput } from '../../core/conversation';
import { planLines, planSummary } from '../../core/plans';
import { usageText } from '../budgets/usageText';
import type { EndedHow, EndedSubagent } from './endedSubagents';

export type AgentState = 'running' | 'stopping' | 'waiting' | 'parked' | 'idle';

export interface AgentPresentation {
  state: AgentState;
  /** `agent:<state>:<kind>[:nostop][:slice]`; package.json menus match it to show Stop, Answer and Raise limit where they apply. */
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
  /** What its open prompt asks for, when `waiting`: an answer (the default) or an approval. */
  waitingFor?: 'answer' | 'approval';
  /** The subagents it waits on (see DoingInput.waitingOn). */
  waitingOn?: readonly string[];
  /** Its commands run sandboxed (see DoingInput.commandsSandboxed). */
  commandsSandboxed?: boolean;
  /** What this agent and every live agent below it cost (0 when no model had a price). */
  treeCost?: number;
  /**
   * How a running turn's time is shown: `elapsed` ("running 12s", for rows repainted every
   * second) or `started` ("running since 14:03:27", for rows that are not, which stays true).
   */
  time?: 'elapsed' | 'started';
}

/**
 * What `agent` is doing, as the Agents view and the conversation view both say it: its turn's
 * activity, the prompt it has open (`pending`: the open prompts, oldest first), and the live
 * subagents it waits on (the one-shot agents its turn holds, or, while it is idle, its running
 * continuable children, whose reports wake it).
 */
export function doingOf(agent: Agent, agents: Pick<AgentRegistry, 'childrenOf'>, pending: OpenPrompts, commandsSandboxed = false): DoingInput {
  const prompt = pending.find((p) => p.agent?.id === agent.id);
  const running = agent.status === 'running';
  const waitingOn = agents
    .childrenOf(agent)
    .filter((c) => c.status === 'running' && (running ? c.kind === 'one-shot' : c.kind !== 'one-shot'))
    .map((c) => c.label);
  return {
    activity: activityOf(agent),
    waitingFor: prompt ? (prompt.intent === 'approval' ? 'approval' : 'answer') : undefined,
    waitingOn: agent.isHeld ? [] : waitingOn,
    commandsSandboxed,
  };
}

/** The open prompts, oldest first, as `doingOf` reads them. */
export type OpenPrompts = readonly { readonly agent?: { readonly id: string }; readonly intent: string }[];

/** The parts of the live registry a live agent's presentation reads. */
export type LiveAgents = Pick<AgentRegistry, 'isLive' | 'childrenOf' | 'ownerOf'>;

/**
 * How `agent` is shown now, read from the live registry and the open prompts: its live subtree's
 * tokens and cost, the agent holding a one-shot, what it waits for. The Agents view builds its
 * rows with it (once per repaint, agentRows.ts) and pickers describe agents with it, so a
 * picker never reads, or disturbs, what the view has shown.
 */
export function presentLiveAgent(agent: Agent, agents: LiveAgents, pending: OpenPrompts, options: { now?: number; time?: PresentationInput['time']; commandsSandboxed?: boolean } = {}): AgentPresentation {
  const { tokens, count, cost } = treeUsage(agent, agents);
  const holder = agent.kind === 'one-shot' ? agents.ownerOf(agent)?.label : undefined;
  const { waitingFor, waitingOn } = doingOf(agent, agents, pending);
  return presentAgent({ agent, waiting: waitingFor !== undefined, treeTokens: tokens, descendants: count, now: options.now ?? Date.now(), holder, waitingFor, waitingOn, treeCost: cost, time: options.time, commandsSandboxed: options.commandsSandboxed });
}

/** An agent as a quick pick names it: its name, its path from its top-level ancestor ("Lead › Researcher"), what it is doing. */
export function pickItemOf(agent: Agent, agents: LiveAgents & Pick<AgentRegistry, 'parentOf'>, pending: OpenPrompts): { label: string; description: string; detail: string } {
  const names: string[] = [];
  for (let a: Agent | undefined = agent; a; ) {
    names.unshift(a.label);
    const parent = agents.parentOf(a);
    a = parent && agents.isLive(parent) ? parent : undefined;
  }
  return { label: agent.label, description: names.join(' › '), detail: presentLiveAgent(agent, agents, pending).description };
}

/** Tokens and cost of `agent` and every live agent below it, and how many those are. */
function treeUsage(agent: Agent, agents: LiveAgents): { tokens: number; count: number; cost: number } {
  let tokens = agent.usage.inputTokens + agent.usage.outputTokens;
  let cost = agent.run.budget.costOf(agent.id);
  let count = 0;
  const stack = agents.isLive(agent) ? agents.childrenOf(agent) : [];
  while (stack.length) {
    const a = stack.pop()!;
    count++;
    tokens += a.usage.inputTokens + a.usage.outputTokens;
    cost += a.run.budget.costOf(a.id);
    stack.push(...agents.childrenOf(a));
  }
  return { tokens, count, cost };
}

export function presentAgent({ agent, waiting, treeTokens, descendants, now, holder, waitingFor, waitingOn, treeCost, time = 'elapsed', commandsSandboxed }: PresentationInput): AgentPresentation {
  const state: AgentState = waiting
    ? 'waiting'
    : agent.stopping
      ? 'stopping'
      : agent.status === 'running'
        ? 'running'
        : agent.isParked
          ? 'parked'
          : 'idle';
  // What keeps its queue (a Stop, a branch Stop, a reload) is said as everywhere else (describeHold).
  const queueHold = holdAt(agent.holds, 'claim');
  const stopped = queueHold ? describeHold(queueHold).text : 'stopped';
  const own = agent.usage.inputTokens + agent.usage.outputTokens;
  const doing = describeDoing({ activity: activityOf(agent), waitingFor: waiting ? (waitingFor ?? 'answer') : undefined, waitingOn, commandsSandboxed });
  const stateText =
    state === 'waiting'
      ? (doing ?? 'waiting for you')
      : state === 'stopping'
        ? 'stopping…'
        : state === 'parked'
          ? `${stopped}, ${agent.pendingCount} queued`
          : state === 'running'
            ? time === 'started'
              ? `${doing ?? 'running'} since ${formatClock(agent.turnStartedAt ?? now)}`
              : `${doing ?? 'running'} · ${formatElapsed(now - (agent.turnStartedAt ?? now))}`
            : agent.lastTurnEnd?.reason === 'aborted' || agent.isHeld || queueHold?.interrupted
              ? stopped
              : (doing ?? 'idle');
  const tokens = descendants > 0 && treeTokens !== own ? `${formatTokens(own)} tok (tree ${formatTokens(treeTokens)})` : `${formatTokens(own)} tok`;
  // A one-shot node has no Stop; its description says whose it is, so the missing action explains itself.
  const kind = agent.kind === 'one-shot' ? `one-shot${holder ? ` for ${holder}` : ''}, no Stop` : kindText(agent.kind);
  const budget = usageText(agent, treeCost ?? 0, now);
  const plan = planSummary(agent.plan);
  const parts = [kind, ...(agent.definition && agent.definition.name !== agent.label ? [agent.definition.name] : []), stateText, ...(plan ? [plan] : []), tokens, ...budget.parts];
  if (agent.engine) parts.push(`external: ${agent.engine.name}`);
  if (agent.engine?.notice) parts.push(agent.engine.notice.text);
  if (agent.run.workspace) parts.push('in worktree');
  if (agent.sessionProblem) parts.push('session not fully saved');
  const description = parts.join(' · ');

  const lines = [
    `**${escapeMarkdown(agent.label)}**: ${kindText(agent.kind)} agent, ${stateText}${state === 'running' && time === 'started' ? ` (${formatElapsed(now - (agent.turnStartedAt ?? now))} so far)` : ''}`,
    '',
    `- Session: \`${agent.id}\``,
  ];
  if (agent.log.header.parentSession) lines.push(`- Parent session: \`${agent.log.header.parentSession}\``);
  if (agent.definition) lines.push(`- Definition: **${escapeMarkdown(agent.definition.name)}** from \`${agent.definition.file}\``);
  lines.push(
    `- Turns: ${agent.turnCount}${agent.lastTurnEnd ? ` (last ended: ${agent.lastTurnEnd.reason}${agent.lastTurnEnd.cause ? `, ${agent.lastTurnEnd.cause}` : ''})` : ''}`,
    `- Tokens: ${agent.usage.inputTokens} in, ${agent.usage.outputTokens} out${descendants > 0 ? `; ${treeTokens} with its ${descendants} live subagent(s)` : ''}`,
    `- Mode: ${agent.log.header.interactionMode}${agent.planMode ? ', plan mode' : ''}`,
  );
  if (agent.engine?.notice) lines.push(`- ${escapeMarkdown(agent.engine.notice.detail)}`);
  if (agent.run.workspace) lines.push(`- Works in its own worktree: \`${agent.run.workspace.folder}\` (your files change only when you Keep its work)`);
  if (agent.sessionProblem) lines.push(`- Session not fully saved (${agent.sessionProblem.code}): ${escapeMarkdown(agent.sessionProblem.message)}`);
  if (agent.pendingCount > 0) lines.push(`- Queued messages: ${agent.pendingCount}${agent.isParked ? ' (parked until you send a message)' : ''}`);
  // A spent budget or a runaway guard is said with the run budget below (usageText).
  const hold = agent.status === 'idle' ? primaryHold(agent.holds) : undefined;
  if (hold && isQueueHold(hold)) lines.push(`- ${describeHold(hold).detail}`);
  if (agent.kind === 'one-shot') {
    const whose = holder ? `"${escapeMarkdown(holder)}", the agent waiting for its result` : 'the agent waiting for its result';
    lines.push('', `No Stop of its own: a one-shot subagent belongs to ${whose}. Stop that agent to stop this one.`);
  } else if (agent.kind === 'continuable' && agent.engine?.stoppable !== false) {
    lines.push('', 'Stop ends only its current turn: it keeps its conversation and queued messages, and its subagents keep running.');
  }
  lines.push(...budget.lines);
  if (agent.plan?.length) lines.push('', `**Plan** (${plan ?? ''})`, '', ...planLines(agent.plan).map((l) => `- ${escapeMarkdown(l)}`));

  return {
    state,
    // No Stop where it cannot reach the work (package.json's Stop menus need the kind last).
    // `:slice` last: the agent has a budget of its own, which Raise limit on its node raises.
    contextValue: `agent:${state}:${agent.kind}${agent.engine?.stoppable === false ? ':nostop' : ''}${agent.run.budget.slices?.owns(agent.id) ? ':slice' : ''}`,
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
    case 'idle': {
      // An idle row only warns: a stop or a completed turn is its ordinary state.
      const tone = agent.lastTurnEnd && describeTurnEnd(agent.lastTurnEnd).tone;
      return tone === 'error' ? 'error' : tone === 'warning' || agent.sessionProblem ? 'warning' : 'circle-outline';
    }
  }
}

/** How a turn end's tone looks wherever an icon says how a turn ended (History). */
export function turnEndIcon(tone: TurnEndTone): string {
  return TONE_ICONS[tone];
}

const TONE_ICONS: Readonly<Record<TurnEndTone, string>> = Object.freeze({
  ok: 'pass',
  stopped: 'debug-stop',
  warning: 'warning',
  error: 'error',
  interrupted: 'debug-disconnect',
});

/** How an ended subagent's row looks: dimmed (the tree colours its icon as disabled), no Stop. */
export interface EndedPresentation {
  /** `ended:<how>:<kind>`: package.json offers only its transcript and Clear on it. */
  contextValue: string;
  icon: string;
  description: string;
  tooltip: string;
}

export function presentEnded(node: EndedSubagent): EndedPresentation {
  const parts = [kindText(node.kind), `ended: ${node.how}`, `${formatTokens(node.tokens)} tok`];
  if (node.cost > 0) parts.push(formatCost(node.cost));
  const lines = [
    `**${escapeMarkdown(node.label)}**: ${kindText(node.kind)} subagent, ended: ${node.how}`,
    '',
    `- Session: \`${node.id}\``,
    `- Tokens: ${node.tokens}${node.cost > 0 ? `; cost ${formatCost(node.cost)}` : ''}`,
    '',
    'It stays here until its parent ends or you clear it (Clear Ended Subagents). Select it to read its conversation.',
  ];
  return { contextValue: `ended:${node.how.replace(/ /g, '-')}:${node.kind}`, icon: endedIcon(node.how), description: parts.join(' · '), tooltip: lines.join('\n') };
}

function endedIcon(how: EndedHow): string {
  switch (how) {
    case 'done':
      return 'pass';
    case 'failed':
      return 'error';
    case 'stopped':
    case 'cancelled':
      return 'debug-stop';
    case 'blocked':
    case 'stopped at a run limit':
    case 'paused':
      return 'warning';
    case 'interrupted':
    case 'ended':
      return 'circle-slash';
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

/** A local clock time, "14:03:27". */
export function formatClock(ms: number): string {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
}

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>]/g, '\\$&');
}
