/**
 * The conversation module's former door (`core/rpc`), kept so that code written against it still
 * loads: everything it exported now lives in `core/conversation`. New code imports from there.
 */
export * from '../conversation';
