import * as vscode from 'vscode';
import { z } from 'zod';
import { runLimitsSchema, type RunLimitsInput } from '../core/limits';

/** Settings are a trust boundary too: a bad value is reported and the default is used. */
const providerSchema = z.enum(['scripted', 'vscode-lm', 'openai-compatible']);
export type ModelProviderSetting = z.infer<typeof providerSchema>;

export interface ArborSettings {
  provider: ModelProviderSetting;
  scriptFile: string;
  limits: RunLimitsInput;
}

export function readSettings(onProblem: (message: string) => void): ArborSettings {
  const config = vscode.workspace.getConfiguration('arbor');
  const provider = providerSchema.safeParse(config.get('model.provider', 'scripted'));
  if (!provider.success) onProblem(`arbor.model.provider must be one of ${providerSchema.options.join(', ')}; using the scripted demo model.`);
  const rawLimits = config.get<unknown>('limits', {});
  const limits = runLimitsSchema.partial().safeParse(rawLimits ?? {});
  if (!limits.success) onProblem(`arbor.limits is invalid (${z.prettifyError(limits.error)}); using the default limits.`);
  const scriptFile = config.get<unknown>('scriptedModel.scriptFile', '');
  return {
    provider: provider.success ? provider.data : 'scripted',
    scriptFile: typeof scriptFile === 'string' ? scriptFile : '',
    limits: limits.success ? (limits.data as RunLimitsInput) : {},
  };
}
