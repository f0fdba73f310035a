import * as vscode from 'vscode';
import { KIND_TEXT, pathText, type AttentionItem, type AttentionKind } from '../../core/attention';

export const SHOW_WAITING_COMMAND = 'arbor.showWaiting';
export const SHOW_WAITING = 'Show What Is Waiting';
export const OPEN = 'Open';

/** The kinds told here, as many of them are said; a paused run, a runaway guard and a reload have their own notice (budgetNotifications.ts, afterReload.ts). */
const TOLD: ReadonlyMap<AttentionKind, string> = new Map<AttentionKind, string>([['question', 'questions'], ['approval', 'approvals'], ['plan-approval', 'plans to approve']]);

export interface NoticeDeps {
  /** The prompt in front of the human: its item needs no notice. */
  shownId(): string | undefined;
  open(key: string): unknown;
  showInformationMessage(message: string, ...actions: string[]): Thenable<string | undefined>;
}

/**
 * One notice per kind of item that waits without its prompt on screen (a question asked while
 * another prompt is open, or with `manual`): never one per item, and never a second of a kind
 * while one is shown. It leads to the inbox, or opens the item when it is the only one.
 */
export class AttentionNotices {
  private known = new Set<string>();
  private readonly shown = new Set<AttentionKind>();

  constructor(private readonly deps: NoticeDeps) {}

  update(items: readonly AttentionItem[]): void {
    const fresh = items.filter((item) => !this.known.has(item.key));
    this.known = new Set(items.map((item) => item.key));
    for (const kind of TOLD.keys()) {
      const waiting = fresh.filter((item) => item.kind === kind && item.promptId !== this.deps.shownId());
      if (waiting.length === 0 || this.shown.has(kind)) continue;
      const all = items.filter((item) => item.kind === kind);
      this.tell(kind, waiting[0], all.length);
    }
  }

  private tell(kind: AttentionKind, item: AttentionItem, count: number): void {
    this.shown.add(kind);
    const message = count === 1 ? `Arbor: ${pathText(item)} waits for your ${KIND_TEXT[kind]}: ${item.asks}` : `Arbor: ${count} ${TOLD.get(kind)} wait for you, the latest from ${pathText(item)}.`;
    const actions = count === 1 ? [OPEN, SHOW_WAITING] : [SHOW_WAITING];
    void this.deps.showInformationMessage(message, ...actions).then((pick) => {
      this.shown.delete(kind);
      if (pick === OPEN) void this.deps.open(item.key);
      else if (pick === SHOW_WAITING) void vscode.commands.executeCommand(SHOW_WAITING_COMMAND);
    });
  }
}
