/*
 * A window that is killed mid-turn (restore.liveTree.test.ts): a runtime on durable sessions in
 * <folder> with live-state records starts root "Busy", which streams text, gets a tool result and
 * then hangs in its next model call; once that is on disk it prints "busy <id>" and waits to be
 * killed (SIGKILL: no shutdown runs).
 */
import { ScriptedModel } from '../../src/core/models/scriptedModel';
import { Runtime } from '../../src/core/runtime';
import { JsonlSessionStore } from '../../src/core/sessions';

async function main(): Promise<void> {
  const [folder] = process.argv.slice(2);
  const store = new JsonlSessionStore(folder, { flushDelayMs: 1 });
  const model = new ScriptedModel({ version: 1, agents: { Busy: { turns: [[{ text: 'streamed before the kill', toolCalls: [{ name: 'list_agents', arguments: {} }] }, { hang: true }]] } } });
  const runtime = new Runtime({ model, sessions: store, liveRecordsFolder: folder, liveRecordDelayMs: 1 });
  const busy = runtime.startRoot({ prompt: 'work', label: 'Busy' });
  while (!busy.log.events.some((e) => e.type === 'tool_result')) await new Promise((r) => setTimeout(r, 5));
  await busy.log.flush();
  await runtime.liveRecords!.flush();
  console.log(`busy ${busy.id}`);
  setInterval(() => undefined, 60_000);
}

void main();
