/**
 * Models: the one provider interface, the scripted (replay) demo model, and the
 * OpenAI-compatible HTTP provider. The VS Code Language Model API provider lives in
 * src/extension because it needs the editor.
 */
export type { ChatMessage, ModelChunk, ModelProvider, ModelRequest, ToolCall, ToolSpec } from './types';
export { modelChunkSchema, parseModelChunk } from './modelChunk';
export { SwitchableModel } from './switchableModel';
export { ScriptedModel, parseScript, scriptSchema, type ModelScript, type ScriptedModelOptions } from './scriptedModel';
export {
  DEFAULT_OPENAI_CAPS,
  DEFAULT_OPENAI_TIMEOUTS,
  OpenAiCompatibleProvider,
  openAiCompatibleSettingsSchema,
  parseOpenAiCompatibleSettings,
  type OpenAiCompatibleOptions,
  type OpenAiCompatibleSettings,
  type OpenAiCompatibleSettingsInput,
} from './openAiCompatible';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './modelRetry';
export { toOpenAiMessages, toOpenAiTools } from './openAiMessages';
