import * as vscode from 'vscode';
import * as z from 'zod';
import { priceTableSchema, runawaySettingsSchema, runLimitsSchema, type PriceTable, type RunawaySettingsInput, type RunLimitsInput } from '../core';
import { parseAfterReloadSetting, type AfterReloadSetting } from './sessions/afterReloadSetting';
import { timeoutMs } from './timeoutSetting';

/** Settings are a trust boundary too: a bad value is reported and a safe default is used. */
const providerSchema = z.enum(['auto', 'scripted', 'vscode-lm', 'openai-compatible']);
export type ModelProviderSetting = z.infer<typeof providerSchema>;

/** An optional text setting: blank means "not set". */
const optionalText = z
  .string()
  .transform((s) => s.trim())
  .transform((s) => (s === '' ? undefined : s));

/** The OpenAI-compatible endpoint's timeouts, in ms; unset means the provider's default. */
export interface OpenAiTimeoutSettings {
  timeoutMs?: number;
  idleTimeoutMs?: number;
  retryTimeoutMs?: number;
}

export interface ArborSettings {
  provider: ModelProviderSetting;
  scriptFile: string;
  limits: RunLimitsInput;
  /** What each model's tokens cost, per million in and out (`arbor.prices`). */
  prices: PriceTable;
  /** The runaway guards (`arbor.runaway`). */
  runaway: RunawaySettingsInput;
  /** Narrows which VS Code chat model `vscode-lm` (and `auto`) picks; unset fields match any. */
  vscodeLm: { family?: string; id?: string };
  /** Checked when the provider is used (parseOpenAiCompatibleSettings); the key is never a setting. */
  openaiCompatible: { baseUrl?: string; model?: string; timeouts: OpenAiTimeoutSettings };
  /** What happens to agents a restore found interrupted (`arbor.sessions.afterReload`, see sessions/afterReload.ts). */
  afterReload: AfterReloadSetting;
  /** Whether a subagent's approval in an interactive run waits for you (`arbor.approvals.subagents`). */
  approvalSubagents: 'deny' | 'ask';
}

const subagentApprovalsSchema = z.enum(['deny', 'ask']);

export function readSettings(onProblem: (message: string) => void): ArborSettings {
  const config = vscode.workspace.getConfiguration('arbor');
  const provider = providerSchema.safeParse(config.get('model.provider', 'auto'));
  if (!provider.success) {
    onProblem(`arbor.model.provider must be one of ${providerSchema.options.join(', ')}; using the scripted demo model.`);
  }
  const rawLimits = config.get<unknown>('limits', {});
  const limits = runLimitsSchema.partial().safeParse(rawLimits ?? {});
  if (!limits.success) onProblem(`arbor.limits is invalid (${z.prettifyError(limits.error)}); using the default limits.`);
  const prices = priceTableSchema.safeParse(config.get<unknown>('prices', {}) ?? {});
  if (!prices.success) onProblem(`arbor.prices is invalid (${z.prettifyError(prices.error)}); costs are not counted.`);
  const runaway = runawaySettingsSchema().partial().safeParse(config.get<unknown>('runaway', {}) ?? {});
  if (!runaway.success) onProblem(`arbor.runaway is invalid (${z.prettifyError(runaway.error)}); using the default guards.`);
  const scriptFile = config.get<unknown>('scriptedModel.scriptFile', '');
  const subagents = subagentApprovalsSchema.safeParse(config.get<unknown>('approvals.subagents', 'deny') ?? 'deny');
  if (!subagents.success) onProblem('arbor.approvals.subagents must be "deny" or "ask"; subagents\' approvals are denied.');
  return {
    provider: provider.success ? provider.data : 'scripted',
    scriptFile: typeof scriptFile === 'string' ? scriptFile : '',
    limits: limits.success ? limits.data : {},
    prices: prices.success ? prices.data : {},
    runaway: runaway.success ? runaway.data : {},
    approvalSubagents: subagents.success ? subagents.data : 'deny',
    afterReload: parseAfterReloadSetting(config.get<unknown>('sessions.afterReload'), onProblem),
    vscodeLm: {
      family: text(config, 'model.vscodeLm.family', onProblem),
      id: text(config, 'model.vscodeLm.id', onProblem),
    },
    openaiCompatible: {
      baseUrl: text(config, 'model.openaiCompatible.baseUrl', onProblem),
      model: text(config, 'model.openaiCompatible.model', onProblem),
      timeouts: {
        timeoutMs: milliseconds(config, 'model.openaiCompatible.responseTimeoutSeconds', onProblem),
        idleTimeoutMs: milliseconds(config, 'model.openaiCompatible.idleTimeoutSeconds', onProblem),
        retryTimeoutMs: milliseconds(config, 'model.openaiCompatible.retryTimeoutSeconds', onProblem),
      },
    },
  };
}

function text(config: vscode.WorkspaceConfiguration, key: string, onProblem: (message: string) => void): string | undefined {
  const parsed = optionalText.safeParse(config.get<unknown>(key, '') ?? '');
  if (parsed.success) return parsed.data;
  onProblem(`arbor.${key} must be text; ignoring it.`);
  return undefined;
}

/** A timeout setting in seconds as ms (see timeoutSetting.ts for its minimum and what a bad value does). */
function milliseconds(config: vscode.WorkspaceConfiguration, key: string, onProblem: (message: string) => void): number | undefined {
  return timeoutMs(key, config.get<unknown>(key), onProblem);
}
