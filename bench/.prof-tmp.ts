import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadCore } from '/work/wt/perf-run/bench/workloads/core';
const core = loadCore(process.argv[2] ?? '/work/wt/perf-run');
const K = 1000;
function script(k: number) {
  const calls = Array.from({ length: k }, (_, i) => ({ name: 'delegate_task', arguments: { label: 'worker', prompt: `task ${i}` } }));
  const usage = { inputTokens: 1, outputTokens: 1 };
  return { version: 1, agents: { root: { turns: [[{ toolCalls: calls, usage }, { text: 'all done', usage }]] }, worker: { turns: [[{ toolCalls: [{ name: 'noop', arguments: {} }], usage }, { toolCalls: [{ name: 'noop', arguments: {} }], usage }, { text: 'done', usage }]] } } };
}
async function round(durable: boolean) {
  const model = new core.ScriptedModel(script(K));
  const dir = durable ? fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-prof-')) : undefined;
  const store = dir ? new core.JsonlSessionStore(dir) : undefined;
  const noop = { name: 'noop', description: 'd', schema: core.toolSchema(core.z.object({})), readOnly: true, run: () => ({ content: 'ok' }) };
  const runtime = new core.Runtime({ model, tools: [noop as any], limits: { maxLiveChildren: K, maxTurns: 10 }, sessions: store });
  const t0 = performance.now();
  const root = runtime.startRoot({ prompt: 'fan out', label: 'root' });
  await root.whenIdle();
  const idle = performance.now() - t0;
  if (store) await store.flushAll();
  const written = performance.now() - t0;
  await runtime.dispose();
  if (store) { await store.dispose(); fs.rmSync(dir!, { recursive: true, force: true }); }
  return { idle, written };
}
(async () => {
  const mode = process.argv[3] ?? 'both';
  for (let i = 0; i < 5; i++) {
    const m = mode !== 'durable' ? await round(false) : undefined;
    const d = mode !== 'memory' ? await round(true) : undefined;
    console.log(JSON.stringify({ m, d, ratio: m && d ? d.written / m.idle : undefined }));
  }
  process.exit(0);
})();
