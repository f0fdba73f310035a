// Turns the conversation items the host sends into DOM nodes. Every text the agent, the user
// or a tool produced goes in through textContent: nothing is ever parsed as HTML.
import type { ConversationItem } from '../../src/core/conversation/conversationWire';

const FROM: Record<string, string> = { user: 'You', parent: 'Parent agent', child: 'Subagent report', system: 'Arbor' };

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function bubble(className: string, who: string, body: Node): HTMLElement {
  const article = h('article', `msg ${className}`);
  article.append(h('div', 'who', who), body);
  return article;
}

/** One item as a node. `agentLabel` names the assistant; `open` keeps a tool's details open. */
export function renderItem(item: ConversationItem, agentLabel: string, open: boolean): HTMLElement {
  switch (item.kind) {
    case 'turn':
      return h('div', 'turn', `Turn ${item.turn}`);
    case 'message':
      return bubble(`from-${item.from}`, FROM[item.from] ?? item.from, h('div', 'text', item.text));
    case 'report': {
      const details = h('details', 'report');
      const summary = h('summary');
      summary.append(h('span', 'report-label', 'Subagent report'), h('span', 'report-title', item.title));
      details.append(summary, h('div', 'text', item.text));
      return details;
    }
    case 'assistant':
      return bubble('assistant', agentLabel, h('div', 'text', item.text));
    case 'tool': {
      const details = h('details', `tool${item.result?.isError ? ' failed' : ''}`);
      details.dataset.callId = item.callId;
      details.open = open;
      const summary = h('summary');
      const status = item.result ? (item.result.isError ? 'failed' : 'done') : 'running…';
      summary.append(h('span', 'tool-label', 'Tool'), h('code', 'tool-name', item.name), h('span', `tool-status ${item.result ? (item.result.isError ? 'is-error' : 'is-done') : 'is-running'}`, status));
      details.append(summary);
      if (item.arguments !== undefined) details.append(h('div', 'section-label', 'Arguments'), h('pre', 'code', item.arguments));
      if (item.result) details.append(h('div', 'section-label', item.result.isError ? 'Error' : 'Result'), h('pre', 'code', item.result.text));
      return details;
    }
    case 'question': {
      const list = h('ul', 'questions');
      for (const q of item.questions) {
        const li = h('li');
        if (q.header) li.append(h('span', 'q-header', q.header));
        li.append(h('span', 'q-text', q.question));
        if (q.options.length) li.append(h('span', 'q-options', q.options.join(' / ')));
        list.append(li);
      }
      return bubble('question', 'Question for you', list);
    }
    case 'answer': {
      if (!item.answers) return bubble('answer', 'Not answered', h('div', 'text', item.error ?? ''));
      const list = h('ul', 'answers');
      for (const a of item.answers) {
        const li = h('li');
        li.append(h('span', 'a-id', `${a.id}: `), h('span', 'a-text', a.text));
        list.append(li);
      }
      return bubble('answer', 'Your answer', list);
    }
    case 'notice':
      return h('div', 'notice', item.text);
    case 'turn_end':
      return h('div', `turn-end reason-${item.reason}`, item.text);
  }
}

export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m ${s % 60}s` : `${Math.floor(m / 60)}h ${m % 60}m`;
}

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}
