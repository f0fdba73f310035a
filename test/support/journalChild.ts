/*
 * Another window, as its own process (sessions/journal.test.ts), on session folder <folder>:
 *  - `crash <n>`: starts n one-shot sessions, appends to each, waits until every batch is on
 *    disk, then kills itself (SIGKILL) before anything else runs;
 *  - `list`: opens a store (which writes out the journals of crashed windows), prints the ids
 *    its History lists as one JSON line, and exits.
 */
import { JsonlSessionStore } from '../../src/core/sessions';
import { header, tick } from './sessionFixtures';

async function main(): Promise<void> {
  const [folder, mode, count] = process.argv.slice(2);
  const store = new JsonlSessionStore(folder, { owner: `journal child ${process.pid}` });
  if (mode === 'crash') {
    const logs = Array.from({ length: Number(count) }, (_, i) => store.create(header(`worker-${i}`, { kind: 'one-shot', parentSession: 'root', delegationDepth: 1 })));
    for (const [i, log] of logs.entries()) log.append({ type: 'user_message', at: tick(), text: `task ${i}`, from: 'parent' });
    await store.flushAll();
    // Nothing runs between the flush and the kill: no timer, so no session has its own file yet.
    process.kill(process.pid, 'SIGKILL');
    return;
  }
  const { sessions } = await store.listSessions();
  process.stdout.write(`${JSON.stringify(sessions.map((s) => s.header.id).sort())}\n`, () => process.exit(0));
}

main().catch((e: unknown) => {
  console.log(JSON.stringify({ error: (e as { code?: string }).code, message: (e as Error).message }));
  process.exit(3);
});
