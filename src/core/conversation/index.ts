/**
 * Host <-> webview wire: the zod schemas of the messages between the extension host and
 * Arbor's webviews, and the pure logic behind them (the conversation view's model).
 */
export {
  MAX_ITEM_TEXT,
  MAX_QUEUED_SHOWN,
  MAX_SEND_LENGTH,
  conversationAgentSchema,
  conversationErrorCodeSchema,
  conversationItemSchema,
  conversationPhaseSchema,
  conversationStateSchema,
  conversationViewStateSchema,
  hostToWebviewSchema,
  parseWebviewMessage,
  webviewToHostSchema,
} from './conversationWire';
export type {
  ConversationAgent,
  ConversationError,
  ConversationErrorCode,
  ConversationItem,
  ConversationPhase,
  ConversationState,
  ConversationViewState,
  HostToWebviewMessage,
  ParsedWebviewMessage,
  WebviewToHostMessage,
} from './conversationWire';
export { ConversationModel, buildConversation, clip, conversationState, turnEndText } from './conversationModel';
export type { ConversationChange, ConversationStateInput } from './conversationModel';
export { describeDoing, type DoingInput } from './agentDoing';
