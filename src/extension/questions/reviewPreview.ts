import * as vscode from 'vscode';

export const REVIEW_SCHEME = 'arbor-review';

/** What a prompt's preview shows and how the picker closes it again. */
export interface OpenPreview {
  readonly uri: vscode.Uri;
  /** The exact text shown (a header, then the action or plan verbatim). */
  readonly text: string;
  close(): Promise<void>;
}

/**
 * Read-only previews of what a prompt asks the human to decide on: the whole command an agent
 * wants to run, or the whole plan it wants approved. A quick pick shows one line, so the
 * question picker opens the full text here, beside the editor and without taking focus, before
 * it offers "Allow". Documents end in `.arbor-review`, whose language wraps long lines, so a
 * long command reads to its last character.
 */
export class ReviewPreviews implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private next = 0;
  private readonly opened = new vscode.EventEmitter<{ uri: string; text: string }>();
  /** Fires with each preview's exact text as it opens. */
  readonly onDidOpenPreview = this.opened.event;

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? 'This preview has been closed.';
  }

  async open(title: string, header: string, body: string): Promise<OpenPreview> {
    const name = title.replace(/[^\w\- ]+/g, ' ').trim().slice(0, 80) || 'Review';
    const uri = vscode.Uri.from({ scheme: REVIEW_SCHEME, path: `/${name}.arbor-review`, query: String(++this.next) });
    const text = `${header}\n\n${body}\n`;
    this.texts.set(uri.toString(), text);
    this.opened.fire({ uri: uri.toString(), text });
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: true, preserveFocus: true });
    return { uri, text, close: () => this.close(uri) };
  }

  private async close(uri: vscode.Uri): Promise<void> {
    this.texts.delete(uri.toString());
    const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.toString() === uri.toString());
    if (tabs.length) await vscode.window.tabGroups.close(tabs, true).then(undefined, () => undefined);
  }

  dispose(): void {
    this.texts.clear();
    this.opened.dispose();
  }
}
