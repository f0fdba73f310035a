import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { AbortedError, isArborError } from '../../../src/core/errors';
import { parseOpenAiCompatibleSettings, type ModelChunk, type ModelRequest } from '../../../src/core/models';
import { OpenAiCompatibleProvider } from '../../../src/core/models/openAiCompatible';
import { until } from '../../support/until';

/** What the fake server does with one request. */
type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: unknown) => void | Promise<void>;

interface SeenRequest {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
}

/**
 * A local stand-in for an OpenAI-compatible server: answers each request with the next
 * handler (the last one repeats), records the requests, and notes when a client's socket closes.
 */
class FakeModelServer {
  readonly requests: SeenRequest[] = [];
  readonly closedRequests: number[] = [];
  private handlers: Handler[] = [];
  private readonly server = http.createServer((req, res) => void this.handle(req, res));
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  respondWith(...handlers: Handler[]): void {
    this.handlers = handlers;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const index = this.requests.length;
    let text = '';
    for await (const part of req) text += String(part);
    this.requests.push({ url: req.url ?? '', headers: req.headers, body: text ? (JSON.parse(text) as unknown) : undefined });
    // 'close' on the response fires when the client goes away before the response ended.
    res.on('close', () => {
      if (!res.writableEnded) this.closedRequests.push(index);
    });
    const handler = this.handlers[Math.min(index, this.handlers.length - 1)];
    await handler(req, res, this.requests[index].body);
  }
}

function chunk(delta: Record<string, unknown>, finishReason: string | null = null, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra };
}
const usageChunk = (prompt: number, completion: number): Record<string, unknown> => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [],
  usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
});

function startSse(res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
}
const sse = (data: unknown): string => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

/** An SSE response of the given chunks, then [DONE]. */
function sseResponse(chunks: unknown[]): Handler {
  return (_req, res) => {
    startSse(res);
    for (const c of chunks) res.write(sse(c));
    res.end(sse('[DONE]'));
  };
}

function jsonError(status: number, message: string, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', code: null } }));
  };
}

function request(signal: AbortSignal, extra: Partial<ModelRequest> = {}): ModelRequest {
  return { agentId: 's-1', agentLabel: 'main', call: 1, turn: 1, step: 1, system: 'You are Arbor.', messages: [{ role: 'user', content: 'hi' }], tools: [], signal, ...extra };
}

async function collect(stream: AsyncIterable<ModelChunk>): Promise<ModelChunk[]> {
  const out: ModelChunk[] = [];
  for await (const c of stream) out.push(c);
  return out;
}

const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const fastRetry = { initialDelayMs: 5, maxDelayMs: 20 };

describe('OpenAiCompatibleProvider against a local server', () => {
  let server: FakeModelServer;
  beforeEach(async () => {
    server = new FakeModelServer();
    await server.start();
  });
  afterEach(async () => server.stop());

  it('streams text and usage, and sends the conversation, tools and key in the OpenAI format', async () => {
    server.respondWith(sseResponse([chunk({ role: 'assistant', content: 'Hel' }), chunk({ content: 'lo' }), chunk({}, 'stop'), usageChunk(12, 3)]));
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url + '/', model: 'llama3.1' }, { apiKey: () => 'sk-test-key' });
    const chunks = await collect(
      provider.stream(
        request(new AbortController().signal, {
          messages: [
            { role: 'user', content: 'list files' },
            { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'list_files', arguments: '{"dir":"."}' }] },
            { role: 'tool', toolCallId: 'c1', name: 'list_files', content: 'a.ts', isError: false },
            { role: 'assistant', content: 'There is a.ts.' },
            { role: 'user', content: 'thanks' },
          ],
          tools: [{ name: 'list_files', description: 'List files', parameters: { type: 'object', properties: { dir: { type: 'string' } } } }],
        }),
      ),
    );
    assert.deepEqual(chunks, [
      { type: 'text', text: 'Hel' },
      { type: 'text', text: 'lo' },
      { type: 'usage', inputTokens: 12, outputTokens: 3 },
    ]);
    assert.equal(server.requests.length, 1);
    const seen = server.requests[0];
    assert.equal(seen.url, '/v1/chat/completions');
    assert.equal(seen.headers.authorization, 'Bearer sk-test-key');
    assert.deepEqual(seen.body, {
      model: 'llama3.1',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'You are Arbor.' },
        { role: 'user', content: 'list files' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'list_files', arguments: '{"dir":"."}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'a.ts' },
        { role: 'assistant', content: 'There is a.ts.' },
        { role: 'user', content: 'thanks' },
      ],
      tools: [{ type: 'function', function: { name: 'list_files', description: 'List files', parameters: { type: 'object', properties: { dir: { type: 'string' } } } } }],
    });
  });

  it('assembles tool calls streamed in pieces across chunks and network writes', async () => {
    server.respondWith(async (_req, res) => {
      startSse(res);
      const events = [
        chunk({ role: 'assistant', content: 'Reading both.' }),
        chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"pa' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'th":"src/' } }] }),
        chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'grep', arguments: '{"pattern":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: 'ä.ts"}' } }] }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: '"TODO"}' } }] }),
        chunk({}, 'tool_calls'),
      ];
      // Cut the byte stream at awkward places: inside an event, inside a line, between "\n\n".
      const text = events.map(sse).join('') + sse('[DONE]');
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += 37) {
        res.write(bytes.subarray(i, i + 37));
        await delay(1);
      }
      res.end();
    });
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' }, { includeUsage: false });
    const chunks = await collect(provider.stream(request(new AbortController().signal)));
    assert.deepEqual(chunks, [
      { type: 'text', text: 'Reading both.' },
      { type: 'tool_call', call: { id: 'call_a', name: 'read_file', arguments: '{"path":"src/ä.ts"}' } },
      { type: 'tool_call', call: { id: 'call_b', name: 'grep', arguments: '{"pattern":"TODO"}' } },
    ]);
    assert.equal((server.requests[0].body as { stream_options?: unknown }).stream_options, undefined);
  });

  it('tolerates a server that sends no usage, no finish_reason and no call id', async () => {
    server.respondWith(sseResponse([chunk({ tool_calls: [{ index: 0, function: { name: 'now', arguments: '' } }] })]));
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' });
    const chunks = await collect(provider.stream(request(new AbortController().signal)));
    assert.equal(chunks.length, 1);
    const only = chunks[0];
    assert.ok(only.type === 'tool_call');
    assert.equal(only.call.name, 'now');
    assert.equal(only.call.arguments, '{}');
    assert.ok(only.call.id.length > 0);
    assert.equal(server.requests[0].headers.authorization, 'Bearer no-api-key-set');
  });

  it('abort mid-stream rejects with signal.reason at once and closes the connection', async () => {
    let release: () => void = () => undefined;
    server.respondWith(async (_req, res) => {
      startSse(res);
      res.write(sse(chunk({ content: 'thinking' })));
      await new Promise<void>((r) => (release = r)); // hold the response open until the test ends
    });
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' });
    const controller = new AbortController();
    const reason = new AbortedError('user');
    const seen: ModelChunk[] = [];
    const started = Date.now();
    const run = (async () => {
      for await (const c of provider.stream(request(controller.signal))) {
        seen.push(c);
        controller.abort(reason);
      }
    })();
    await assert.rejects(run, (e: unknown) => e === reason);
    assert.ok(Date.now() - started < 2000);
    assert.deepEqual(seen, [{ type: 'text', text: 'thinking' }]);
    await until(() => server.closedRequests.length > 0, 'the server sees the connection close');
    assert.deepEqual(server.closedRequests, [0], 'the server sees the client close the connection');
    release();
  });

  it('abort while waiting for the response rejects with signal.reason and closes the connection', async () => {
    server.respondWith(async () => {
      await delay(10_000);
    });
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' });
    const controller = new AbortController();
    const reason = new AbortedError('parent');
    const rejected = assert.rejects(collect(provider.stream(request(controller.signal))), (e: unknown) => e === reason);
    // Abort once the request is at the server (not after a guessed delay), so there is a
    // connection to close; the server holds its response for 10 s, longer than mocha waits.
    await until(() => server.requests.length > 0, 'the request to reach the server', 5000);
    controller.abort(reason);
    await rejected;
    await until(() => server.closedRequests.length > 0, 'the server sees the connection close');
    assert.deepEqual(server.closedRequests, [0]);
  });

  it('a consumer that stops reading early closes the connection', async () => {
    server.respondWith(async (_req, res) => {
      startSse(res);
      res.write(sse(chunk({ content: 'first' })));
      await delay(5_000);
      res.end();
    });
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' });
    for await (const c of provider.stream(request(new AbortController().signal))) {
      assert.deepEqual(c, { type: 'text', text: 'first' });
      break;
    }
    await until(() => server.closedRequests.length > 0, 'the server sees the connection close');
    assert.deepEqual(server.closedRequests, [0]);
  });

  it('an already-aborted signal sends nothing', async () => {
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' });
    const controller = new AbortController();
    const reason = new AbortedError('disposed');
    controller.abort(reason);
    await assert.rejects(collect(provider.stream(request(controller.signal))), (e: unknown) => e === reason);
    assert.equal(server.requests.length, 0);
  });

  it('retries a 429 with backoff, then streams the answer', async () => {
    server.respondWith(jsonError(429, 'Rate limit reached'), jsonError(429, 'Rate limit reached'), sseResponse([chunk({ content: 'ok' }, 'stop')]));
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' }, { retry: fastRetry });
    const chunks = await collect(provider.stream(request(new AbortController().signal)));
    assert.deepEqual(chunks, [{ type: 'text', text: 'ok' }]);
    assert.equal(server.requests.length, 3);
  });

  it('honours Retry-After, and does not wait for one longer than the policy allows', async () => {
    server.respondWith(jsonError(429, 'slow down', { 'retry-after-ms': '40' }), sseResponse([chunk({ content: 'ok' }, 'stop')]));
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' }, { retry: { initialDelayMs: 1, maxDelayMs: 1 } });
    const started = Date.now();
    await collect(provider.stream(request(new AbortController().signal)));
    assert.ok(Date.now() - started >= 35, 'waited for the server-given delay');

    server.requests.length = 0;
    server.respondWith(jsonError(429, 'come back tomorrow', { 'retry-after': '86400' }));
    const impatient = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' }, { retry: { maxRetryAfterMs: 1000 } });
    await assert.rejects(collect(impatient.stream(request(new AbortController().signal))), (e: unknown) => isArborError(e, 'MODEL_UNAVAILABLE') && /rate limiting/.test(e.message));
    assert.equal(server.requests.length, 1);
  });

  it('gives up after the configured retries on a 5xx with MODEL_UNAVAILABLE', async () => {
    server.respondWith(jsonError(503, 'overloaded'));
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' }, { retry: { ...fastRetry, maxRetries: 2 } });
    await assert.rejects(collect(provider.stream(request(new AbortController().signal))), (e: unknown) => isArborError(e, 'MODEL_UNAVAILABLE') && e.details?.attempts === 3 && /overloaded/.test(e.message));
    assert.equal(server.requests.length, 3);
  });

  it('stops retrying as soon as the turn is aborted during a backoff', async () => {
    server.respondWith(jsonError(500, 'boom'));
    // A backoff far longer than the test's timeout: only the abort can end the wait.
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' }, { retry: { initialDelayMs: 600_000, maxDelayMs: 600_000 } });
    const controller = new AbortController();
    const reason = new AbortedError('user');
    const streaming = collect(provider.stream(request(controller.signal)));
    await until(() => server.requests.length === 1, 'the first attempt reaches the server', 5000);
    controller.abort(reason);
    await assert.rejects(streaming, (e: unknown) => e === reason);
    assert.equal(server.requests.length, 1);
  });

  it('reports 401 as MODEL_AUTH naming the base URL and the command, without the key, and does not retry', async () => {
    server.respondWith(jsonError(401, 'Incorrect API key provided: sk-secret-123456.'));
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' }, { apiKey: async () => 'sk-secret-123456', retry: fastRetry });
    await assert.rejects(collect(provider.stream(request(new AbortController().signal))), (e: unknown) => {
      assert.ok(isArborError(e, 'MODEL_AUTH'));
      assert.match(e.message, /check the API key for http:\/\/127\.0\.0\.1:\d+\/v1; set it with the 'Arbor: Set API Key' command/);
      assert.ok(!JSON.stringify(e.toJSON()).includes('sk-secret'), 'the key never appears in the error');
      return true;
    });
    assert.equal(server.requests.length, 1);
  });

  it('reports 403 as MODEL_AUTH too', async () => {
    server.respondWith(jsonError(403, 'forbidden'));
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' });
    await assert.rejects(collect(provider.stream(request(new AbortController().signal))), (e: unknown) => isArborError(e, 'MODEL_AUTH'));
  });

  it('reports 400 as MODEL_BAD_REQUEST with the server message, without retrying', async () => {
    server.respondWith(jsonError(400, "'messages' must contain at least one user message"));
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' }, { retry: fastRetry });
    await assert.rejects(
      collect(provider.stream(request(new AbortController().signal))),
      (e: unknown) => isArborError(e, 'MODEL_BAD_REQUEST') && e.message.includes("'messages' must contain at least one user message") && e.details?.status === 400,
    );
    assert.equal(server.requests.length, 1);
  });

  it('reports an unknown model (404) as MODEL_BAD_REQUEST naming the model', async () => {
    server.respondWith(jsonError(404, 'model "nope" not found, try pulling it first'));
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'nope' });
    await assert.rejects(collect(provider.stream(request(new AbortController().signal))), (e: unknown) => isArborError(e, 'MODEL_BAD_REQUEST') && /pulling it first/.test(e.message) && /'nope'/.test(e.message));
  });

  it('reports an error sent inside the stream as MODEL_ERROR', async () => {
    server.respondWith(sseResponse([chunk({ content: 'part' }), { error: { message: 'context length exceeded', type: 'server_error' } }]));
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' });
    await assert.rejects(collect(provider.stream(request(new AbortController().signal))), (e: unknown) => isArborError(e, 'MODEL_ERROR') && /context length exceeded/.test(e.message));
  });

  it('reports a server that is not running as MODEL_UNAVAILABLE after retrying', async () => {
    const closed = new FakeModelServer();
    await closed.start();
    const url = closed.url;
    await closed.stop();
    const provider = new OpenAiCompatibleProvider({ baseUrl: url, model: 'm' }, { retry: { ...fastRetry, maxRetries: 1 } });
    await assert.rejects(collect(provider.stream(request(new AbortController().signal))), (e: unknown) => isArborError(e, 'MODEL_UNAVAILABLE') && /is it running/.test(e.message) && e.details?.attempts === 2);
  });

  it('reads the API key at each request', async () => {
    server.respondWith(sseResponse([chunk({ content: 'x' }, 'stop')]));
    let key = 'first-key';
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' }, { apiKey: () => key });
    await collect(provider.stream(request(new AbortController().signal)));
    key = 'second-key';
    await collect(provider.stream(request(new AbortController().signal)));
    assert.deepEqual(server.requests.map((r) => r.headers.authorization), ['Bearer first-key', 'Bearer second-key']);
  });
});

describe('OpenAiCompatibleProvider against a misbehaving server', () => {
  let server: FakeModelServer;
  beforeEach(async () => {
    server = new FakeModelServer();
    await server.start();
  });
  afterEach(async () => server.stop());

  /** Holds the response open without a word until the client goes away. */
  const holdOpen = (res: http.ServerResponse): Promise<void> => new Promise<void>((resolve) => res.on('close', () => resolve()));

  it('a server that stalls after its headers ends with MODEL_TIMEOUT (idle timeout) and the connection is closed', async () => {
    server.respondWith(async (_req, res) => {
      startSse(res);
      res.flushHeaders();
      await holdOpen(res);
    });
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' }, { idleTimeoutMs: 50 });
    await assert.rejects(collect(provider.stream(request(new AbortController().signal))), (e: unknown) => {
      assert.ok(isArborError(e, 'MODEL_TIMEOUT'), String(e));
      assert.match(e.message, /sent its response headers, then nothing for 50 ms/);
      assert.match(e.message, /idleTimeoutSeconds/);
      return true;
    });
    await until(() => server.closedRequests.length === 1, 'the server sees the connection close', 5000);
  });

  it('a server that stalls mid-stream ends with MODEL_TIMEOUT after what it sent', async () => {
    server.respondWith(async (_req, res) => {
      startSse(res);
      res.write(sse(chunk({ content: 'half an ans' })));
      await holdOpen(res);
    });
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' }, { idleTimeoutMs: 50 });
    const seen: ModelChunk[] = [];
    await assert.rejects(
      (async () => {
        for await (const c of provider.stream(request(new AbortController().signal))) seen.push(c);
      })(),
      (e: unknown) => isArborError(e, 'MODEL_TIMEOUT') && /stopped sending in the middle of the response: nothing for 50 ms/.test(e.message),
    );
    assert.deepEqual(seen, [{ type: 'text', text: 'half an ans' }]);
    await until(() => server.closedRequests.length === 1, 'the server sees the connection close', 5000);
  });

  it('a server that sends only keep-alive comments ends with MODEL_TIMEOUT naming them', async () => {
    server.respondWith(async (_req, res) => {
      startSse(res);
      const timer = setInterval(() => res.write(': keep-alive\n\n'), 5);
      await holdOpen(res);
      clearInterval(timer);
    });
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' }, { idleTimeoutMs: 100 });
    await assert.rejects(collect(provider.stream(request(new AbortController().signal))), (e: unknown) => isArborError(e, 'MODEL_TIMEOUT') && /only keep-alive comments/.test(e.message));
    await until(() => server.closedRequests.length === 1, 'the server sees the connection close', 5000);
  });

  it('a server that never answers is retried only within the retry timeout, then MODEL_TIMEOUT', async () => {
    server.respondWith(async (_req, res) => holdOpen(res));
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' }, { timeoutMs: 50, retryTimeoutMs: 400, retry: { maxRetries: 100, initialDelayMs: 1, maxDelayMs: 1 } });
    await assert.rejects(collect(provider.stream(request(new AbortController().signal))), (e: unknown) => {
      assert.ok(isArborError(e, 'MODEL_TIMEOUT'), String(e));
      assert.match(e.message, /did not start answering within/);
      assert.match(e.message, /Gave up after \d attempts/);
      // Each attempt waits at least 50 ms and none starts after 400 ms: at most 9 fit, not 101.
      assert.ok(typeof e.details?.attempts === 'number' && e.details.attempts >= 2 && e.details.attempts <= 9, String(e.details?.attempts));
      return true;
    });
    await until(() => server.closedRequests.length === server.requests.length, 'every attempt\'s connection is closed', 5000);
  });

  it('the response timeout alone, without retries, ends with MODEL_TIMEOUT', async () => {
    server.respondWith(async (_req, res) => holdOpen(res));
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' }, { timeoutMs: 50, retry: { maxRetries: 0 } });
    // One attempt: the error carries no attempt count (a retried call says how many it made).
    await assert.rejects(collect(provider.stream(request(new AbortController().signal))), (e: unknown) => isArborError(e, 'MODEL_TIMEOUT') && /within 50 ms/.test(e.message) && e.details?.attempts === undefined);
    // On a loaded machine the client may give up before the server has read the request, so the
    // server sees one request or none, never a second.
    assert.ok(server.requests.length <= 1, String(server.requests.length));
  });

  it('an endless stream ends with MODEL_TOO_LARGE at the response cap, and the connection is closed', async () => {
    let sent = 0;
    server.respondWith(async (_req, res) => {
      startSse(res);
      const piece = sse(chunk({ content: 'x'.repeat(1000) }));
      let open = true;
      let wake = (): void => undefined;
      res.on('close', () => ((open = false), wake()));
      res.on('drain', () => wake());
      while (open) {
        sent += piece.length;
        if (!res.write(piece)) await new Promise<void>((r) => (wake = r));
      }
    });
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' }, { maxResponseBytes: 256 * 1024 });
    let text = 0;
    await assert.rejects(
      (async () => {
        for await (const c of provider.stream(request(new AbortController().signal))) if (c.type === 'text') text += c.text.length;
      })(),
      (e: unknown) => isArborError(e, 'MODEL_TOO_LARGE') && /sent a response larger than 256 Ki bytes/.test(e.message),
    );
    assert.ok(text <= 256 * 1024, `no more than the cap reaches the reader (${text})`);
    await until(() => server.closedRequests.length === 1, 'the server sees the connection close', 5000);
    assert.ok(sent > 256 * 1024);
  });

  it('one huge line ends with MODEL_TOO_LARGE at the event cap, whether or not it ever ends', async () => {
    for (const ending of ['', '\n\n']) {
      server.respondWith(async (_req, res) => {
        startSse(res);
        res.write('data: {"choices":[{"index":0,"delta":{"content":"');
        res.write('y'.repeat(2 * 1024 * 1024));
        res.write(`"}}]}${ending}`);
        await holdOpen(res);
      });
      const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' }, { maxEventChars: 64 * 1024 });
      await assert.rejects(
        collect(provider.stream(request(new AbortController().signal))),
        (e: unknown) => isArborError(e, 'MODEL_TOO_LARGE') && /one line or event larger than 64 Ki characters/.test(e.message),
        JSON.stringify(ending),
      );
    }
  });

  it('an event made of many data lines counts as one against the event cap', async () => {
    server.respondWith(async (_req, res) => {
      startSse(res);
      for (let i = 0; i < 200; i++) res.write(`data: ${'z'.repeat(1000)}\n`);
      await holdOpen(res);
    });
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' }, { maxEventChars: 64 * 1024 });
    await assert.rejects(collect(provider.stream(request(new AbortController().signal))), (e: unknown) => isArborError(e, 'MODEL_TOO_LARGE'));
  });

  it('a 200 that is not an event stream (an HTML login page) fails with MODEL_BAD_OUTPUT naming the content type', async () => {
    server.respondWith((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><body>Please sign in to the Wi-Fi</body></html>');
    });
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' }, { retry: fastRetry });
    await assert.rejects(collect(provider.stream(request(new AbortController().signal))), (e: unknown) => {
      assert.ok(isArborError(e, 'MODEL_BAD_OUTPUT'), String(e));
      assert.match(e.message, /answered with 'text\/html; charset=utf-8' instead of an event stream/);
      assert.equal(e.details?.contentType, 'text/html; charset=utf-8');
      return true;
    });
    assert.equal(server.requests.length, 1, 'not retried');
  });

  it('a 200 without a content type fails with MODEL_BAD_OUTPUT too', async () => {
    server.respondWith((_req, res) => {
      res.writeHead(200);
      res.end('ok');
    });
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' });
    await assert.rejects(collect(provider.stream(request(new AbortController().signal))), (e: unknown) => isArborError(e, 'MODEL_BAD_OUTPUT') && /no content type/.test(e.message));
  });

  it('a usage the server sends as text or negative fails with MODEL_BAD_OUTPUT and yields no usage', async () => {
    for (const usage of [{ prompt_tokens: '12', completion_tokens: 3 }, { prompt_tokens: -5, completion_tokens: 3 }, { prompt_tokens: 1.5, completion_tokens: 3 }]) {
      server.respondWith(sseResponse([chunk({ content: 'hi' }, 'stop'), { ...usageChunk(0, 0), usage }]));
      const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' });
      const seen: ModelChunk[] = [];
      await assert.rejects(
        (async () => {
          for await (const c of provider.stream(request(new AbortController().signal))) seen.push(c);
        })(),
        (e: unknown) => isArborError(e, 'MODEL_BAD_OUTPUT') && /usage\.prompt_tokens/.test(e.message),
        JSON.stringify(usage),
      );
      assert.ok(!seen.some((c) => c.type === 'usage'));
    }
  });

  it('a tool call whose id or name is a number fails with MODEL_BAD_OUTPUT', async () => {
    for (const call of [{ index: 0, id: 7, function: { name: 'grep', arguments: '{}' } }, { index: 0, id: 'c1', function: { name: 42, arguments: '{}' } }]) {
      server.respondWith(sseResponse([chunk({ tool_calls: [call] }, 'tool_calls')]));
      const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' });
      await assert.rejects(collect(provider.stream(request(new AbortController().signal))), (e: unknown) => isArborError(e, 'MODEL_BAD_OUTPUT') && /tool_calls/.test(e.message));
    }
  });

  it('an event stream that closes without any event fails with MODEL_UNAVAILABLE instead of completing empty', async () => {
    server.respondWith((_req, res) => {
      startSse(res);
      res.end(': nothing to see\n\n');
    });
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' });
    await assert.rejects(collect(provider.stream(request(new AbortController().signal))), (e: unknown) => isArborError(e, 'MODEL_UNAVAILABLE') && /without sending anything/.test(e.message));
  });

  it('an event that is not JSON fails with MODEL_BAD_OUTPUT', async () => {
    server.respondWith(sseResponse(['not json at all']));
    const provider = new OpenAiCompatibleProvider({ baseUrl: server.url, model: 'm' });
    await assert.rejects(collect(provider.stream(request(new AbortController().signal))), (e: unknown) => isArborError(e, 'MODEL_BAD_OUTPUT') && /not JSON: not json at all/.test(e.message));
  });
});

describe('OpenAI-compatible settings', () => {
  it('accepts an http(s) base URL and a model, trimming a trailing slash', () => {
    assert.deepEqual(parseOpenAiCompatibleSettings({ baseUrl: 'http://localhost:11434/v1/', model: ' llama3.1 ' }), { baseUrl: 'http://localhost:11434/v1', model: 'llama3.1' });
    const p = new OpenAiCompatibleProvider({ baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o-mini' });
    assert.equal(p.label, 'gpt-4o-mini (api.openai.com)');
  });

  it('rejects a missing or non-http base URL and an empty model with INPUT_INVALID naming the setting', () => {
    for (const [input, field] of [
      [{ baseUrl: 'localhost:11434', model: 'm' }, 'baseUrl'],
      [{ baseUrl: 'ftp://example.com', model: 'm' }, 'baseUrl'],
      [{ model: 'm' }, 'baseUrl'],
      [{ baseUrl: 'http://localhost:1234/v1', model: '  ' }, 'model'],
      [{ baseUrl: 'http://localhost:1234/v1' }, 'model'],
    ] as const) {
      assert.throws(() => parseOpenAiCompatibleSettings(input), (e: unknown) => isArborError(e, 'INPUT_INVALID') && e.details?.field === field, JSON.stringify(input));
    }
  });
});
