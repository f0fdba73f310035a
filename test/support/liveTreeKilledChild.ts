/*
 * A window that is killed while a subagent is mid-turn (liveTreeDeferred.test.ts): a runtime on
 * durable sessions in <folder> with live-state records starts root "Lead", whose continuable
 * "Worker" streams text, gets a tool result and then hangs in its next model call. Once the logs
 * and the record that follows them are on disk it prints "ready <lead id> <worker id>" and waits
 * to be killed (SIGKILL: no shutdown runs).
 */
import { ScriptedModel } from '../../src/core/models/scriptedModel';
import { Runtime } from '../../src/core/runtime';
import { JsonlSessionStore } from '../../src/core/sessions';

async function main(): Promise<void> {
  const [folder] = process.argv.slice(2);
  const store = new JsonlSessionStore(folder, { flushDelayMs: 1 });
  const model = new ScriptedModel({
    version: 1,
    agents: {
      Lead: { turns: [[{ text: 'Starting the worker.', toolCalls: [{ name: 'start_subagent', arguments: { label: 'Worker', prompt: 'work on it' } }] }, { text: 'Lead is done for now.' }]] },
      Worker: { turns: [[{ text: 'streamed before the kill', toolCalls: [{ name: 'list_agents', arguments: {} }] }, { hang: true }]] },
    },
  });
  const runtime = new Runtime({ model, sessions: store, liveRecordsFolder: folder, liveRecordDelayMs: 1 });
  const lead = runtime.startRoot({ prompt: 'plan', label: 'Lead' });
  const worker = (): ReturnType<typeof runtime.agents.all>[number] | undefined => runtime.agents.all().find((a) => a.label === 'Worker');
  while (lead.status !== 'idle' || !worker()?.log.events.some((e) => e.type === 'tool_result')) await new Promise((r) => setTimeout(r, 5));
  await Promise.all([lead.log.flush(), worker()!.log.flush()]);
  // The record written after the logs: it names their lengths as they stay.
  runtime.liveRecords!.changed(lead);
  await runtime.liveRecords!.flush();
  console.log(`ready ${lead.id} ${worker()!.id}`);
  setInterval(() => undefined, 60_000);
}

void main();
