// Renders an agent's session log as a read-only Markdown transcript. Pure (no 'vscode'
// import): the transcript content provider calls it on every change.
import type { SessionEvent, SessionHeader } from '../../core/sessions';

const FROM: Record<string, string> = { user: 'You', parent: 'Parent agent', child: 'Subagent report', system: 'Arbor' };

/** `warning`: what the user must know before reading, such as the part of a damaged session that was left out. */
export function renderTranscript(header: SessionHeader, events: readonly SessionEvent[], live: { status: string } | undefined, warning?: string): string {
  const out: string[] = [];
  out.push(`# ${header.label}`);
  out.push('');
  const facts = [`${header.kind} agent`, `session \`${header.id}\``, `mode ${header.interactionMode}`, `started ${header.createdAt}`];
  if (header.parentSession) facts.push(`parent \`${header.parentSession}\``);
  if (header.definition) facts.push(`definition "${header.definition.name}" (${header.definition.file})`);
  out.push(facts.join(' · '));
  out.push(live ? `Status: **${live.status}**` : 'Status: **ended** (this agent is no longer live)');
  if (warning) out.push('', `> **Warning:** ${warning}`);
  for (const e of events) {
    switch (e.type) {
      case 'turn_start':
        out.push('', `---`, '', `## Turn ${e.turn}`, '');
        break;
      case 'user_message':
        out.push(`**${FROM[e.from] ?? e.from}:**`, '', quote(e.text), '');
        break;
      case 'assistant_text':
        out.push(`**Agent:**`, '', e.text, '');
        break;
      case 'tool_call':
        out.push(`**Tool call** \`${e.call.name}\``, '', fence(pretty(e.call.arguments), 'json'), '');
        break;
      case 'tool_result':
        out.push(`**${e.isError ? 'Tool error' : 'Tool result'}** \`${e.name}\``, '', fence(pretty(e.content), 'json'), '');
        break;
      case 'question':
        out.push('**Question for you:**', '');
        for (const q of e.questions) {
          out.push(`- ${q.header ? `[${q.header}] ` : ''}${q.question}${q.options.length ? ` (${q.options.map((o) => o.label).join(' / ')})` : ''}`);
        }
        out.push('');
        break;
      case 'answer':
        if (e.answers) {
          out.push('**Your answer:**', '');
          for (const a of e.answers) out.push(`- ${a.id}: ${[...a.selected, ...(a.custom ? [`"${a.custom}"`] : [])].join(', ') || '(none)'}`);
          out.push('');
        } else {
          out.push(`**Question not answered:** ${e.error ?? 'unknown'}`, '');
        }
        break;
      case 'approval':
        out.push(`**Approval** ${e.action}${e.detail ? ` \`${e.detail}\`` : ''}: ${e.decision} (${e.reason})`, '');
        break;
      case 'interrupt':
        out.push(`_Stop requested by ${e.authority === 'user' ? 'you' : `ancestor ${e.by ?? ''}`}._`, '');
        break;
      case 'turn_end':
        out.push(`_Turn ${e.turn} ended: ${e.reason}${e.cause ? ` (${e.cause})` : ''}${e.message ? `: ${e.message}` : ''}._`, '');
        break;
      case 'queue_dropped':
        out.push(`_${e.ids.length} queued message${e.ids.length === 1 ? ' was' : 's were'} dropped._`, '');
        break;
      case 'plan':
        out.push('**Plan:**', '', ...e.items.map((i) => `- [${i.status === 'done' ? 'x' : ' '}] ${i.step}${i.status === 'in_progress' ? ' _(in progress)_' : ''}`), '');
        break;
      case 'queued': // shown when a turn takes it up, as a message
      case 'usage':
      case 'external_session':
        break;
    }
  }
  return out.join('\n') + '\n';
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => `> ${l}`)
    .join('\n');
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // Not JSON: shown as it was sent.
    return text;
  }
}

function fence(text: string, lang: string): string {
  const ticks = text.includes('```') ? '````' : '```';
  return `${ticks}${lang}\n${text}\n${ticks}`;
}
