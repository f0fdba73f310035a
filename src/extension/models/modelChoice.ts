import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isArborError, messageOf } from '../../core';
import { openAiCompatiblePart, parseOpenAiCompatibleSettings, scriptedModelPart, type ModelChunk, type ModelProvider, type ModelRequest } from '../../core/models';
import { reportError } from '../errorReporting';
import { demoPart } from '../parts';
import type { ArborSettings } from '../settings';
import type { ApiKeyStore } from './apiKeys';
import { LanguageModelProvider, listLanguageModels, type LanguageModelInfo } from './languageModelProvider';

export interface ModelChoiceOptions {
  log: vscode.LogOutputChannel;
  apiKeys: ApiKeyStore;
  /** A model setting that cannot be used; the safe fallback is already chosen when this is called. */
  onProblem(message: string): void;
}

const FALLBACK = 'using the scripted demo model until this is fixed (Arbor: Select Model... helps).';

/**
 * Turns the model settings into the provider new turns use. A bad or incomplete setting never
 * leaves Arbor without a model: it falls back to the scripted demo model and says what to fix.
 */
export class ModelChoice implements vscode.Disposable {
  private auto: AutoModel | undefined;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly options: ModelChoiceOptions) {
    // Chat models come and go (an extension installed, a sign-in): `auto` chooses again.
    this.subscription = vscode.lm.onDidChangeChatModels(() => this.auto?.chooseAgain());
  }

  providerFor(settings: ArborSettings): ModelProvider {
    this.auto = undefined;
    switch (settings.provider) {
      case 'scripted':
        return this.scripted(settings);
      case 'vscode-lm':
        return new LanguageModelProvider(selectorOf(settings));
      case 'openai-compatible':
        return this.openAiCompatible(settings);
      case 'auto': {
        const auto = new AutoModel(selectorOf(settings), () => this.scripted(settings), this.options.log);
        this.auto = auto;
        // Choose right after activation (listing the chat models is not needed for the first
        // paint of the views), so the log says early which model turns will use.
        setImmediate(() => {
          if (this.auto === auto) void auto.resolve();
        });
        return auto;
      }
    }
  }

  dispose(): void {
    this.subscription.dispose();
  }

  private openAiCompatible(settings: ArborSettings): ModelProvider {
    const { baseUrl, model } = settings.openaiCompatible;
    if (!baseUrl || !model) {
      const missing = [!baseUrl && 'arbor.model.openaiCompatible.baseUrl', !model && 'arbor.model.openaiCompatible.model'].filter(Boolean).join(' and ');
      this.options.onProblem(`The OpenAI-compatible model needs ${missing}; ${FALLBACK}`);
      return this.scripted(settings);
    }
    try {
      const parsed = parseOpenAiCompatibleSettings({ baseUrl, model });
      const apiKeys = this.options.apiKeys;
      return new (openAiCompatiblePart().OpenAiCompatibleProvider)(parsed, { apiKey: () => apiKeys.get(parsed.baseUrl), ...definedOnly(settings.openaiCompatible.timeouts) });
    } catch (err) {
      if (isArborError(err, 'PART_LOAD_FAILED')) {
        this.options.onProblem(`${err.message} Meanwhile Arbor is ${FALLBACK}`);
        return this.scripted(settings);
      }
      const field = isArborError(err) && typeof err.details?.field === 'string' ? `arbor.model.openaiCompatible.${err.details.field}` : 'The OpenAI-compatible model setting';
      const reason = isArborError(err) ? err.message.replace(/^Invalid model setting '[^']*': /, '') : String(err);
      this.options.onProblem(`${field} is invalid (${reason}); ${FALLBACK}`);
      return this.scripted(settings);
    }
  }

  /** The scripted demo model, playing the workspace's script file when one is set. */
  private scripted(settings: ArborSettings): ModelProvider {
    if (settings.scriptFile) {
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
      const file = folder ? path.resolve(folder, settings.scriptFile) : settings.scriptFile;
      try {
        const model = new (scriptedModelPart().ScriptedModel)(fs.readFileSync(file, 'utf8'));
        this.options.log.info(`Scripted model plays ${file}`);
        return model;
      } catch (err) {
        reportError(this.options.log, `Could not use the model script ${file}; the built-in demo script plays instead`, err);
      }
    }
    return new (scriptedModelPart().ScriptedModel)(demoPart().demoScript);
  }
}

/**
 * `auto`: the first VS Code chat model that matches the optional selector (for example
 * Copilot's), else the scripted demo model. The choice is made on first use, logged, and made
 * again when the available chat models change.
 */
export class AutoModel implements ModelProvider {
  readonly id = 'auto';
  private choice: Promise<ModelProvider> | undefined;
  private current: ModelProvider | undefined;
  private fallback: ModelProvider | undefined;

  /** `makeFallback` is called once, the first time no chat model is available. */
  constructor(
    private readonly selector: vscode.LanguageModelChatSelector,
    private readonly makeFallback: () => ModelProvider,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  get label(): string {
    return this.current ? `Auto: ${this.current.label}` : 'Auto';
  }

  /** The provider the next request goes to. */
  resolve(): Promise<ModelProvider> {
    this.choice ??= this.choose();
    return this.choice;
  }

  chooseAgain(): void {
    this.choice = undefined;
    void this.resolve();
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    const provider = await this.resolve();
    request.signal.throwIfAborted();
    yield* provider.stream(request);
  }

  private async choose(): Promise<ModelProvider> {
    let models: LanguageModelInfo[] = [];
    try {
      models = await listLanguageModels(this.selector);
    } catch (err) {
      this.log.warn(`Model (auto): could not list VS Code chat models (${messageOf(err)}).`);
    }
    const next = models[0] ? LanguageModelProvider.forModel(models[0]) : (this.fallback ??= this.makeFallback());
    if (next.id !== this.current?.id) {
      this.log.info(
        models[0]
          ? `Model (auto): using the VS Code chat model ${next.label}.`
          : 'Model (auto): no VS Code chat model is available; using the scripted demo model.',
      );
    }
    this.current = next;
    return next;
  }
}

function selectorOf(settings: ArborSettings): vscode.LanguageModelChatSelector {
  const { family, id } = settings.vscodeLm;
  return { ...(family ? { family } : {}), ...(id ? { id } : {}) };
}

/** The timeouts that are set; unset ones keep the provider's defaults. */
function definedOnly(timeouts: ArborSettings['openaiCompatible']['timeouts']): Partial<Record<keyof typeof timeouts, number>> {
  const out: Partial<Record<keyof typeof timeouts, number>> = {};
  for (const key of ['timeoutMs', 'idleTimeoutMs', 'retryTimeoutMs'] as const) if (timeouts[key] !== undefined) out[key] = timeouts[key];
  return out;
}
