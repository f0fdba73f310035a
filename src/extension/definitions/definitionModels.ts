import * as vscode from 'vscode';
import type { ModelProvider, SwitchableModel } from '../../core/models';
import { Disposable } from '../disposable';
import { LanguageModelProvider, listLanguageModels, type LanguageModelInfo } from '../models/languageModelProvider';

/**
 * The models an agent definition may name: the model Arbor uses now (by its id or name), and the
 * editor's chat models (by id, name or family), listed when a definition names a model and again
 * whenever the chat models change. The runtime asks synchronously when a defined agent starts,
 * so it reads the last list; a model not in it is reported as not available.
 */
export class DefinitionModels extends Disposable {
  private chatModels: readonly LanguageModelInfo[] = [];
  private wanted = false;

  constructor(
    private readonly current: SwitchableModel,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this._register(vscode.lm.onDidChangeChatModels(() => void (this.wanted ? this.refresh() : undefined)));
  }

  resolve(id: string): ModelProvider | undefined {
    const want = id.trim().toLowerCase();
    const now = this.current.provider;
    if (now.id.toLowerCase() === want || now.label.toLowerCase() === want) return this.current;
    const found = this.chatModels.find((m) => [m.id, m.name, m.family].some((name) => name.toLowerCase() === want));
    return found ? LanguageModelProvider.forModel(found) : undefined;
  }

  /** Lists the chat models again (a definition names a model): from then on they resolve. */
  async refresh(): Promise<void> {
    this.wanted = true;
    try {
      this.chatModels = await listLanguageModels();
    } catch (err) {
      // Without the list only the current model resolves; the definition's error says so when used.
      this.log.warn(`Arbor: could not list the chat models for agent definitions: ${String(err)}`);
    }
  }
}
