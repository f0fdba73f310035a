/* eslint-disable @typescript-eslint/no-require-imports -- the package's subpath exports, which the types' module resolution does not read */
import type * as WebSocketClient from '@agentclientprotocol/sdk/dist/transports/ws-stream';
import type * as HttpClient from '@agentclientprotocol/sdk/dist/transports/http-stream';

/**
 * What a served agent's connection needs and a local one does not: the SDK's experimental
 * WebSocket and streamable-HTTP client transports, and the `ws` WebSocket (Node 20 has no
 * WebSocket of its own without a flag, and a browser-style one sends no Authorization header).
 * The editor's build keeps this in a file of its own (dist/acp-net.js, see esbuild.mjs) that
 * networkCarrier.ts requires the first time a served agent connects, so neither activation nor
 * a local agent pays for it.
 */
export const { createWebSocketStream } = require('@agentclientprotocol/sdk/experimental/ws-client') as typeof WebSocketClient;
export const { createHttpStream } = require('@agentclientprotocol/sdk/experimental/http-client') as typeof HttpClient;
export { WebSocket } from 'ws';
