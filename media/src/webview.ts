// The conversation view's script. The host sends a snapshot when the view posts 'ready' (on
// load, and again each time the view is shown: hidden views are unloaded), then only what
// changed. Send and Stop are independent actions: Send queues a message whenever the agent
// can take one, Stop ends only the current turn. The host parses every message it receives.
import type {
  ConversationAgent,
  ConversationItem,
  ConversationState,
  ConversationViewState,
  HostToWebviewMessage,
  WebviewToHostMessage,
} from '../../src/core/conversation/conversationWire';
import { formatElapsed, formatTokens, h, renderItem } from './render';

/** Kept by VS Code across a window reload; the host restores the view on `agentId`'s session. */
type ViewState = Partial<ConversationViewState>;

interface VsCodeWebviewApi {
  postMessage(message: WebviewToHostMessage): void;
  getState(): ViewState | undefined;
  setState(state: ViewState): void;
}

declare function acquireVsCodeApi(): VsCodeWebviewApi;

const vscode = acquireVsCodeApi();
const byId = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const el = {
  label: byId('agent-label'),
  kind: byId('agent-kind'),
  state: byId('state'),
  conversation: byId('conversation'),
  queue: byId('queue'),
  plan: byId('plan'),
  error: byId('error'),
  message: byId<HTMLTextAreaElement>('message'),
  hint: byId('hint'),
  send: byId<HTMLButtonElement>('send'),
  stop: byId<HTMLButtonElement>('stop'),
};

let agent: ConversationAgent | undefined;
let state: ConversationState | undefined;
/** The node of each item, by index. */
let nodes: HTMLElement[] = [];
/** The text of the last Send, given back to the box if the host refuses it. */
let lastSent: string | undefined;
let ticker: ReturnType<typeof setInterval> | undefined;

el.message.value = vscode.getState()?.draft ?? '';
const keepState = (): void => vscode.setState({ agentId: agent?.id ?? vscode.getState()?.agentId, draft: el.message.value });

window.addEventListener('message', (event: MessageEvent<HostToWebviewMessage>) => {
  const message = event.data;
  if (typeof message !== 'object' || message === null) return;
  switch (message.type) {
    case 'snapshot':
      agent = message.agent;
      el.label.textContent = agent.label;
      el.kind.textContent = agent.kind;
      document.body.classList.toggle('one-shot', agent.kind === 'one-shot');
      keepState();
      replaceItems(0, message.items, true);
      applyState(message.state);
      break;
    case 'items':
      replaceItems(message.start, message.items, false);
      break;
    case 'state':
      lastSent = undefined;
      applyState(message.state);
      break;
    case 'error':
      showError(message.code, message.message);
      if (lastSent !== undefined && el.message.value === '') el.message.value = lastSent;
      lastSent = undefined;
      updateButtons();
      break;
  }
});

el.send.addEventListener('click', send);
el.stop.addEventListener('click', () => {
  hideError();
  vscode.postMessage({ type: 'stop' });
});
el.message.addEventListener('input', () => {
  keepState();
  updateButtons();
});
el.message.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  }
});

function send(): void {
  const text = el.message.value;
  if (!state?.canSend || !text.trim()) return;
  hideError();
  vscode.postMessage({ type: 'send', text });
  lastSent = text;
  el.message.value = '';
  keepState();
  updateButtons();
}

/** Replaces the items from `start` on, keeping open tool details open and the view pinned to the end. */
function replaceItems(start: number, items: ConversationItem[], snapshot: boolean): void {
  const box = el.conversation;
  const pinned = snapshot || box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  const open = new Set<string>();
  for (const node of nodes.slice(start)) {
    if (node instanceof HTMLDetailsElement && node.open && node.dataset.callId) open.add(node.dataset.callId);
    node.remove();
  }
  if (snapshot) box.replaceChildren();
  nodes = nodes.slice(0, start);
  const label = agent?.label ?? 'Agent';
  const fragment = document.createDocumentFragment();
  for (const item of items) {
    const node = renderItem(item, label, item.kind === 'tool' && open.has(item.callId));
    nodes.push(node);
    fragment.append(node);
  }
  box.append(fragment);
  const empty = box.querySelector(':scope > .empty');
  if (nodes.length === 0 && !empty) box.append(h('p', 'empty', 'No messages yet.'));
  if (nodes.length > 0) empty?.remove();
  if (pinned) box.scrollTop = box.scrollHeight;
}

function applyState(next: ConversationState): void {
  state = next;
  document.body.dataset.phase = next.phase;
  renderStateLine();
  if (ticker) clearInterval(ticker);
  ticker = next.turnStartedAt !== undefined ? setInterval(renderStateLine, 1000) : undefined;
  el.hint.textContent = next.hint;
  el.message.disabled = !next.canSend;
  el.stop.textContent = next.phase === 'stopping' ? 'Stopping…' : 'Stop';
  renderQueue(next);
  renderPlan(next);
  updateButtons();
}

/** The agent's plan as a checklist, replaced whole with each state (a plan is replaced whole). */
function renderPlan(next: ConversationState): void {
  const plan = next.plan ?? [];
  el.plan.hidden = plan.length === 0;
  if (plan.length === 0) {
    el.plan.replaceChildren();
    return;
  }
  const done = plan.filter((i) => i.status === 'done').length;
  const list = h('ul', 'plan-list');
  for (const item of plan) {
    const li = h('li', `plan-item plan-${item.status}`);
    li.dataset.status = item.status;
    li.append(h('span', 'plan-mark', item.status === 'done' ? '☑' : item.status === 'in_progress' ? '▶' : '☐'), h('span', 'plan-step', item.step));
    list.append(li);
  }
  el.plan.replaceChildren(h('div', 'plan-title', `Plan · ${done}/${plan.length} done`), list);
}

function renderStateLine(): void {
  if (!state) return;
  const parts = [state.text];
  if (state.turnStartedAt !== undefined && state.phase !== 'ended') parts.push(formatElapsed(Date.now() - state.turnStartedAt));
  parts.push(`${formatTokens(state.tokens)} tokens`);
  el.state.textContent = parts.join(' · ');
  el.state.className = `state phase-${state.phase}`;
}

function renderQueue(next: ConversationState): void {
  el.queue.replaceChildren();
  el.queue.hidden = next.pending === 0;
  if (next.pending === 0) return;
  el.queue.append(h('div', 'queue-title', `Queued (${next.pending})${next.phase === 'parked' ? ': waiting for your next Send' : ''}`));
  const list = h('ol', 'queue-list');
  for (const q of next.queued) {
    const li = h('li');
    li.append(h('span', 'queue-from', q.from === 'user' ? 'You' : q.from === 'parent' ? 'Parent' : q.from === 'child' ? 'Subagent' : 'Arbor'), h('span', 'queue-text', q.text));
    list.append(li);
  }
  el.queue.append(list);
  if (next.pending > next.queued.length) el.queue.append(h('div', 'queue-more', `and ${next.pending - next.queued.length} more`));
}

function updateButtons(): void {
  el.send.disabled = !state?.canSend || !el.message.value.trim();
  el.stop.disabled = !state?.canStop;
}

function showError(code: string, message: string): void {
  el.error.replaceChildren(h('span', 'error-code', code), document.createTextNode(` ${message}`));
  el.error.hidden = false;
}

function hideError(): void {
  el.error.hidden = true;
  el.error.replaceChildren();
}

vscode.postMessage({ type: 'ready' });
