/**
 * Models: the one provider interface, the scripted (replay) demo model, and the
 * OpenAI-compatible HTTP provider. The VS Code Language Model API provider lives in
 * src/extension because it needs the editor.
 */
export type { ChatMessage, ModelChunk, ModelProvider, ModelRequest, ToolCall, ToolSpec } from './types';
export { modelChunkSchema, parseModelChunk } from './modelChunk';
export { SwitchableModel } from './switchableModel';
// The scripted model (the demo model and the test double) is a part loaded when it first plays.
export { scriptedModelPart } from '../parts';
export { ScriptedModel, parseScript, scriptSchema, type ModelScript, type ScriptedModelOptions } from './scriptedModel';
export {
  DEFAULT_OPENAI_CAPS,
  DEFAULT_OPENAI_TIMEOUTS,
  openAiCompatibleSettingsSchema,
  parseOpenAiCompatibleSettings,
  type OpenAiCompatibleOptions,
  type OpenAiCompatibleSettings,
  type OpenAiCompatibleSettingsInput,
} from './openAiSettings';
// The provider is a part loaded when an OpenAI-compatible model is first chosen: reached through its loader.
export { openAiCompatiblePart } from '../parts';
export { OpenAiCompatibleProvider } from './openAiCompatible';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './modelRetry';
export { toOpenAiMessages, toOpenAiTools } from './openAiMessages';
