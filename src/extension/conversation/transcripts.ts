import * as vscode from 'vscode';
import type { Agent } from '../../core/agents';
import type { Runtime } from '../../core';
import type { SessionLog } from '../../core/sessions';
import { Disposable } from '../disposable';
import { transcriptRendererPart } from '../parts';

export const TRANSCRIPT_SCHEME = 'arbor-transcript';
const REFRESH_MS = 100;

/**
 * Read-only transcripts under their own URI scheme: `arbor-transcript:/<label>.md?<session id>`.
 * A document updates live while its agent streams (changes are coalesced). Live agents are
 * read from the runtime; an ended agent's log is kept only while its transcript is open, so a
 * long window does not hold every session it ever ran (History reopens past ones from disk).
 */
export class TranscriptProvider extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  /** Logs of sessions that are not live but whose transcript is open (ended agents, History). */
  private readonly kept = new Map<string, SessionLog>();
  /** What a kept session's transcript must warn of (a damaged file read up to the damage). */
  private readonly warnings = new Map<string, string>();
  private readonly open = new Map<string, vscode.Uri>();
  private readonly pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly runtime: Runtime) {
    super();
    this._register(
      runtime.onEvent((e) => {
        if (!this.open.has(e.agent.id)) return;
        if (e.type === 'agent_removed') this.kept.set(e.agent.id, e.agent.log);
        if (e.type === 'agent_changed' && e.change.type === 'log' && e.change.event.type === 'usage') return;
        this.pending.add(e.agent.id);
        this.timer ??= setTimeout(() => this.flush(), REFRESH_MS);
      }),
    );
    this._register(
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme !== TRANSCRIPT_SCHEME) return;
        this.open.delete(doc.uri.query);
        this.kept.delete(doc.uri.query);
        this.warnings.delete(doc.uri.query);
      }),
    );
  }

  /** Make a session's transcript available (e.g. a session reopened from history), with what it must warn of. */
  remember(log: SessionLog, warning?: string): void {
    this.kept.set(log.header.id, log);
    if (warning) this.warnings.set(log.header.id, warning);
    else this.warnings.delete(log.header.id);
  }

  uriFor(agentOrId: Agent | string): vscode.Uri {
    const id = typeof agentOrId === 'string' ? agentOrId : agentOrId.id;
    const label = (typeof agentOrId === 'string' ? this.logOf(id)?.header.label : agentOrId.label) ?? 'transcript';
    const name = label.replace(/[^\w .-]+/g, '_').slice(0, 60) || 'transcript';
    return vscode.Uri.from({ scheme: TRANSCRIPT_SCHEME, path: `/${name}.md`, query: id });
  }

  async show(agent: Agent, options: { preview?: boolean; preserveFocus?: boolean } = {}): Promise<vscode.TextEditor> {
    if (!this.runtime.agents.isLive(agent)) this.kept.set(agent.id, agent.log);
    const uri = this.uriFor(agent);
    this.open.set(agent.id, uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    return vscode.window.showTextDocument(doc, { preview: options.preview ?? true, preserveFocus: options.preserveFocus ?? true });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const id = uri.query;
    const log = this.logOf(id);
    if (!log) return `# Transcript unavailable\n\nNo session \`${id}\` is known in this window. Open it from the Arbor History instead.\n`;
    this.open.set(id, uri);
    const live = this.runtime.agents.get(id);
    // A restored agent's transcript is read now (its status change renders it again); a failure shows on its node.
    live?.loadPast()?.catch(() => undefined);
    return transcriptRendererPart().renderTranscript(log.header, log.events, live ? { status: live.stopping ? 'stopping' : live.status } : undefined, live ? undefined : this.warnings.get(id));
  }

  override dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    super.dispose();
    this.changed.dispose();
  }

  private logOf(id: string): SessionLog | undefined {
    return this.runtime.agents.get(id)?.log ?? this.kept.get(id);
  }

  private flush(): void {
    this.timer = undefined;
    for (const id of this.pending) {
      const uri = this.open.get(id);
      if (uri) this.changed.fire(uri);
    }
    this.pending.clear();
  }
}
