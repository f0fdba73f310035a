/** Attention: one list of everything that waits on the human, over every agent of the tree. */
export { attentionItems, byAge, pathText, KIND_TEXT, PATH_SEPARATOR, type AttentionAgent, type AttentionItem, type AttentionKind, type AttentionSources } from './attentionItems';
export { AttentionQueue, type AttentionQueueDeps } from './attentionQueue';
