/*
 * Another window, as its own process (sessions.twoWindows.test.ts): opens session <id> in
 * <folder> for writing, as window <owner>, appends one event, prints "ready", then appends one
 * event per line it reads on stdin ("close" ends the session and exits).
 */
import * as readline from 'node:readline';
import { JsonlSessionStore } from '../../src/core/sessions';

async function main(): Promise<void> {
  const [folder, id, owner, mode] = process.argv.slice(2);
  const store = new JsonlSessionStore(folder, { owner, flushDelayMs: 1 });
  const log =
    mode === 'create'
      ? store.create({ type: 'header', version: 1, id, createdAt: new Date().toISOString(), delegationDepth: 0, kind: 'root', label: owner, interactionMode: 'interactive' })
      : await store.reopenLog(id);
  log.append({ type: 'user_message', at: new Date().toISOString(), text: `${owner} opened it`, from: 'user' });
  await log.flush();
  console.log('ready');
  for await (const line of readline.createInterface({ input: process.stdin })) {
    if (line === 'close') break;
    log.append({ type: 'assistant_text', at: new Date().toISOString(), text: `${owner}: ${line}` });
    await log.flush();
    console.log('written');
  }
  await store.dispose();
  console.log('closed');
  process.exit(0); // stdin stays open
}

main().catch((e: unknown) => {
  console.log(JSON.stringify({ error: (e as { code?: string }).code, message: (e as Error).message }));
  process.exit(3);
});
