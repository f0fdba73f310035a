/*
 * Run as its own process by workspace.confinementProperty.test.ts: flips `<workspace>/<name>`
 * between a real folder (kept as `<workspace>/<name>.real` while it is away) and a symbolic link
 * to `<outside>`, and the file `<name>/<file>` between itself and a link to `<outside>/<file>`,
 * until it is killed. Each state is held a fraction of a millisecond (about the time of one tool
 * call), so the tools meet every state as well as every change between states. Prints the number
 * of flips done so far (one line every 20 flips) so the test can wait until the race is under way.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const [workspace, outside, name, file] = process.argv.slice(2);
const folder = path.join(workspace, name);
const away = path.join(workspace, `${name}.real`);

/** One step, tolerating what the other side may be doing (a step that fails is tried again next flip). */
function attempt(step: () => void): void {
  try {
    step();
  } catch {
    // The next flip tries again.
  }
}

function is(p: string, kind: 'link' | 'folder'): boolean {
  try {
    const stat = fs.lstatSync(p);
    return kind === 'link' ? stat.isSymbolicLink() : stat.isDirectory();
  } catch {
    return false;
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));
/** Holds the current state for a fraction of a millisecond. */
function hold(): void {
  Atomics.wait(pause, 0, 0, 0.1 + Math.random() * 0.3);
}

let flips = 0;
for (;;) {
  // The real folder goes away and a link to outside takes its name.
  attempt(() => fs.renameSync(folder, away));
  attempt(() => fs.symlinkSync(outside, folder));
  hold();
  // Inside the real folder, the file becomes a link to the outside file of the same name.
  if (!is(path.join(away, file), 'link')) attempt(() => fs.renameSync(path.join(away, file), path.join(away, `${file}.kept`)));
  attempt(() => fs.symlinkSync(path.join(outside, file), path.join(away, file)));
  // The real folder is back under its name, holding that link.
  if (is(folder, 'link')) attempt(() => fs.unlinkSync(folder));
  // A folder the tools made while the name was free gives way to the real one.
  else if (is(folder, 'folder') && is(away, 'folder')) attempt(() => fs.rmSync(folder, { recursive: true, force: true }));
  attempt(() => fs.renameSync(away, folder));
  hold();
  // The real file is back.
  if (is(path.join(folder, file), 'link')) attempt(() => fs.unlinkSync(path.join(folder, file)));
  attempt(() => fs.renameSync(path.join(folder, `${file}.kept`), path.join(folder, file)));
  hold();
  flips++;
  if (flips % 20 === 0) process.stdout.write(`${flips}\n`);
}
