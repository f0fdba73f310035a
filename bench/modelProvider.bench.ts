/*
 * OpenAI-compatible provider benchmarks against a misbehaving local server: figures, not
 * assertions. Run with `npm run bench` (node --expose-gc).
 *
 *  1. Endless stream: a server that never stops sending small events; the default response cap
 *     ends it. Bytes received, time, and the peak heap growth while it ran.
 *  2. One huge line: 10 MB and 40 MB in a single SSE line; the default event cap ends it. CPU
 *     time until the typed error, against the CPU time of just reading the same bytes with fetch
 *     (the server runs in the same process, so both figures include its writing).
 *  3. A healthy stream of 100,000 small events: the provider's cost per event.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isArborError } from '../src/core/errors';
import { OpenAiCompatibleProvider } from '../src/core/models/openAiCompatible';
import { DEFAULT_OPENAI_CAPS } from '../src/core/models/openAiSettings';
import type { ModelRequest } from '../src/core/models/types';

const gc = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
const heap = (): number => (gc(), process.memoryUsage().heapUsed);
const mib = (n: number): string => `${(n / 1048576).toFixed(1)} MiB`;
const cpuMs = (since: NodeJS.CpuUsage): number => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1000;
};

type Handler = (res: http.ServerResponse) => void | Promise<void>;

async function withServer<T>(handler: Handler, work: (url: string) => Promise<T>): Promise<T> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => void handler(res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    return await work(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

/** Writes `piece` until the client goes away, respecting backpressure. */
async function writeForever(res: http.ServerResponse, piece: string | Buffer): Promise<void> {
  let open = true;
  let wake = (): void => undefined;
  res.on('close', () => ((open = false), wake()));
  res.on('drain', () => wake());
  while (open) if (!res.write(piece)) await new Promise<void>((r) => (wake = r));
}

const request = (): ModelRequest => ({
  agentId: 'b',
  agentLabel: 'bench',
  call: 1,
  turn: 1,
  step: 1,
  system: '',
  messages: [{ role: 'user', content: 'go' }],
  tools: [],
  signal: new AbortController().signal,
});

async function drain(provider: OpenAiCompatibleProvider): Promise<{ code: string; chunks: number }> {
  let chunks = 0;
  try {
    for await (const _ of provider.stream(request())) chunks++;
    return { code: 'completed', chunks };
  } catch (e) {
    return { code: isArborError(e) ? e.code : `untyped: ${String(e)}`, chunks };
  }
}

const event = (content: string): string => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`;

async function endlessStream(): Promise<void> {
  await withServer(
    async (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      await writeForever(res, event('x'.repeat(200)).repeat(20));
    },
    async (url) => {
      const provider = new OpenAiCompatibleProvider({ baseUrl: url, model: 'm' });
      const before = heap();
      let peak = 0;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed - before)), 5);
      const t0 = process.hrtime.bigint();
      const { code, chunks } = await drain(provider);
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().heapUsed - before);
      console.log(
        `endless stream: ended with ${code} after ${chunks} chunks (cap ${mib(DEFAULT_OPENAI_CAPS.maxResponseBytes)}) in ${ms.toFixed(0)} ms; ` +
          `peak heap growth ${mib(peak)} while it ran (the reader dropped the text)`,
      );
    },
  );
}

async function hugeLine(bytes: number): Promise<void> {
  const body = Buffer.concat([Buffer.from('data: {"choices":[{"index":0,"delta":{"content":"'), Buffer.alloc(bytes, 'y'), Buffer.from('"}}]}\n\n')]);
  const handler: Handler = (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(body);
  };
  // Baseline: the same bytes read with fetch and thrown away.
  const baseline = await withServer(handler, async (url) => {
    const t = process.cpuUsage();
    const response = await fetch(`${url}/chat/completions`, { method: 'POST', body: '{}' });
    const reader = response.body!.getReader();
    for (;;) if ((await reader.read()).done) break;
    return cpuMs(t);
  });
  await withServer(handler, async (url) => {
    const provider = new OpenAiCompatibleProvider({ baseUrl: url, model: 'm' });
    const t = process.cpuUsage();
    const { code } = await drain(provider);
    const used = cpuMs(t);
    console.log(
      `one ${(bytes / 1e6).toFixed(0)} MB line: ended with ${code} (event cap ${mib(DEFAULT_OPENAI_CAPS.maxEventChars).replace('MiB', 'Mi chars')}) after ${used.toFixed(0)} ms of CPU; ` +
        `reading the same bytes bare: ${baseline.toFixed(0)} ms (${(used / Math.max(baseline, 0.1)).toFixed(1)}x)`,
    );
  });
}

async function healthyStream(events: number): Promise<void> {
  const payload = Array.from({ length: events }, (_, i) => event(`t${i % 10}`)).join('') + 'data: [DONE]\n\n';
  await withServer(
    (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(payload);
    },
    async (url) => {
      const provider = new OpenAiCompatibleProvider({ baseUrl: url, model: 'm' });
      await drain(provider); // warm-up
      const t0 = process.hrtime.bigint();
      const { code, chunks } = await drain(provider);
      const us = Number(process.hrtime.bigint() - t0) / 1e3;
      console.log(`healthy stream: ${chunks} events ${code} in ${(us / 1000).toFixed(0)} ms, ${(us / events).toFixed(2)} µs per event (HTTP on loopback included)`);
    },
  );
}

async function main(): Promise<void> {
  console.log(`node ${process.version}, ${process.platform}/${process.arch}, gc exposed: ${typeof (globalThis as { gc?: unknown }).gc === 'function'}`);
  await endlessStream();
  await hugeLine(10_000_000);
  await hugeLine(40_000_000);
  await healthyStream(100_000);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
