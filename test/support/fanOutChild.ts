/*
 * Run as its own process (under a low open-files limit) by sessions.fileLimit.test.ts: a root
 * delegates to K one-shot workers that all end at about the same moment, every session written
 * to a JSONL store in the given folder, while another part of the process keeps reading a file.
 * Prints one JSON line: what the run saw.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as z from 'zod';
import { ScriptedModel } from '../../src/core/models/scriptedModel';
import { Runtime, type RuntimeTool } from '../../src/core/runtime';
import { JsonlSessionStore } from '../../src/core/sessions';

async function main(): Promise<void> {
  const [dir, kText] = process.argv.slice(2);
  const k = Number(kText);
  const noop: RuntimeTool = { name: 'noop', description: 'does nothing', schema: () => z.object({}), readOnly: true, run: () => ({ content: 'ok' }) };
  const calls = Array.from({ length: k }, (_, i) => ({ name: 'delegate_task', arguments: { label: 'worker', prompt: `task ${i}` } }));
  const model = new ScriptedModel({
    version: 1,
    agents: {
      root: { turns: [[{ toolCalls: calls }, { text: 'all done' }]] },
      worker: { turns: [[{ toolCalls: [{ name: 'noop', arguments: {} }] }, { text: 'done' }]] },
    },
  });
  const errors: string[] = [];
  const store = new JsonlSessionStore(path.join(dir, 'sessions'), { onError: (e) => errors.push(e.code) });
  const runtime = new Runtime({ model, tools: [noop], limits: { maxLiveChildren: k }, sessions: store });

  // Another file user in the same process.
  const other = path.join(dir, 'other.txt');
  fs.writeFileSync(other, 'another part of the extension host reads this');
  let otherFailures = 0;
  let otherReads = 0;
  let running = true;
  const reader = (async () => {
    while (running) {
      await Promise.all(
        Array.from({ length: 4 }, () =>
          fs.promises.readFile(other).then(
            () => otherReads++,
            () => otherFailures++,
          ),
        ),
      );
      await new Promise((r) => setImmediate(r));
    }
  })();

  const root = runtime.startRoot({ prompt: 'fan out', label: 'root' });
  await root.whenIdle();
  await runtime.dispose();
  let disposeError: string | undefined;
  await store.dispose().catch((e: unknown) => (disposeError = String(e)));
  running = false;
  await reader;
  console.log(JSON.stringify({ rootEnd: root.lastTurnEnd?.reason, errors, otherFailures, otherReads, disposeError, sessionProblems: root.sessionProblem?.code ?? null }));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
