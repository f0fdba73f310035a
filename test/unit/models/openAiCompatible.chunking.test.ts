import * as assert from 'node:assert/strict';
import { isArborError } from '../../../src/core/errors';
import { DEFAULT_OPENAI_CAPS, type ModelChunk, type ModelRequest } from '../../../src/core/models';
import { OpenAiCompatibleProvider } from '../../../src/core/models/openAiCompatible';
import { SseLineMeter } from '../../../src/core/models/sseLineMeter';

/*
 * The cap on one line or event against reads cut exactly where a test says: `fetch` answers
 * with a stream of the given pieces, one read each, so no network decides the chunking.
 */

function request(): ModelRequest {
  return { agentId: 'a', agentLabel: 'a', call: 1, turn: 1, step: 1, system: 's', messages: [{ role: 'user', content: 'hi' }], tools: [], signal: new AbortController().signal };
}

/** Runs `provider` against a server whose response arrives in exactly these reads. */
async function streamOf(provider: OpenAiCompatibleProvider, reads: string[]): Promise<ModelChunk[]> {
  const original = globalThis.fetch;
  const encoder = new TextEncoder();
  globalThis.fetch = async () => {
    let next = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (next < reads.length) controller.enqueue(encoder.encode(reads[next++]));
        else controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  };
  try {
    const chunks: ModelChunk[] = [];
    for await (const c of provider.stream(request())) chunks.push(c);
    return chunks;
  } finally {
    globalThis.fetch = original;
  }
}

const provider = (maxEventChars?: number) => new OpenAiCompatibleProvider({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' }, { maxEventChars });
const HEAD = 'data: {"choices":[{"index":0,"delta":{"content":"';
const TAIL = '"},"finish_reason":"stop"}]}';
/** The line of one text event whose line is exactly `chars` characters long. */
const lineOf = (chars: number): string => HEAD + 'y'.repeat(chars - HEAD.length - TAIL.length) + TAIL;
const DONE = 'data: [DONE]\n\n';
const tooLarge = (e: unknown): boolean => isArborError(e, 'MODEL_TOO_LARGE') && /one line or event larger than/.test(e.message);

/** Every way of cutting `text` into reads of `size` characters. */
function cut(text: string, size: number): string[] {
  const reads: string[] = [];
  for (let i = 0; i < text.length; i += size) reads.push(text.slice(i, i + size));
  return reads;
}

describe('OpenAiCompatibleProvider: the cap on one line or event, whatever the chunking', () => {
  it('ends an event of 4 Mi + 60,000 characters whose end arrives in the same read with MODEL_TOO_LARGE', async () => {
    const line = lineOf(DEFAULT_OPENAI_CAPS.maxEventChars + 60_000);
    // The first read leaves less than the cap buffered; the second brings the rest, the end of the event and [DONE].
    const first = line.slice(0, DEFAULT_OPENAI_CAPS.maxEventChars - 1000);
    await assert.rejects(streamOf(provider(), [first, line.slice(first.length) + '\n\n' + DONE]), tooLarge);
  });

  it('a line one character over the cap fails, and one at the cap passes, for every read size', async () => {
    const cap = 2000;
    for (const size of [1, 7, 64, 999, 1000, 1999, 2000, 2001, 5000]) {
      await assert.rejects(streamOf(provider(cap), cut(lineOf(cap + 1) + '\n\n' + DONE, size)), tooLarge, `reads of ${size}`);
      const chunks = await streamOf(provider(cap), cut(lineOf(cap) + '\n\n' + DONE, size));
      assert.equal(chunks.filter((c) => c.type === 'text').map((c) => (c.type === 'text' ? c.text : '')).join('').length, cap - HEAD.length - TAIL.length, `reads of ${size}`);
    }
  });

  it('an event of short data lines that passes the cap within one read fails too', async () => {
    const event = Array.from({ length: 30 }, () => `data: ${'z'.repeat(99)}`).join('\n') + '\n\n';
    await assert.rejects(streamOf(provider(2000), [event + DONE]), tooLarge);
  });

  it('measures lines across reads and every kind of line end', () => {
    const meter = new SseLineMeter(5);
    assert.equal(meter.fits('abc'), true);
    assert.equal(meter.fits('de\r\nabcde\rab'), true);
    assert.equal(meter.fits('c\n\n12345\n'), true);
    assert.equal(meter.fits('123'), true);
    assert.equal(meter.fits('456\n'), false);
    assert.equal(new SseLineMeter(5).fits('123456'), false, 'a line with no end yet is measured too');
  });
});
