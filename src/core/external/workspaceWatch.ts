import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Agent } from '../agents/agent';
import { isoNow } from '../clock';
import type { ChangeSets } from '../workspace/changeSets';
import type { WorkspacePort } from '../workspace/port';
import type { ExternalAgentServices } from './clientServices';

/**
 * What an external agent changes in the workspace by its own means during a turn (its own edit
 * tools, a shell command it runs itself), recorded in its change set so Review, Keep and Undo
 * work for it as for Arbor's own agents. Arbor sees only the agent's `fs/*` and `terminal/*`
 * calls, so the workspace is read when the turn starts (each file's size, time and text) and
 * again when it ends: every file created, changed or deleted in between is recorded with the
 * text it had at the start.
 *
 * Limits, said in the transcript when they bite:
 * - a file over MAX_FILE_BYTES, one that is not text (it holds a NUL byte), and files past
 *   MAX_KEPT_BYTES or MAX_FILES of the workspace are not kept: a change to one is named, but it
 *   cannot be undone;
 * - folders in SKIPPED (version control, dependencies) are not read at all;
 * - a change anyone else made to the workspace during the agent's turn is taken for the agent's.
 * Invariant: a file Arbor already recorded for the agent (its `fs/write_text_file`) keeps its
 * first original; the end of the turn only records what the agent left in it.
 */

export const MAX_FILE_BYTES = 1024 * 1024;
export const MAX_KEPT_BYTES = 64 * 1024 * 1024;
export const MAX_FILES = 20_000;
const SKIPPED = new Set(['.git', 'node_modules', '.hg', '.svn']);

interface Seen {
  size: number;
  mtimeMs: number;
  /** The text at the start; undefined when it was not kept (see the limits). */
  text: string | undefined;
}

/** Every file below `folder` (relative, with forward slashes), with its text when it is kept. */
async function snapshot(folder: string): Promise<{ files: Map<string, Seen>; complete: boolean }> {
  const files = new Map<string, Seen>();
  let kept = 0;
  let complete = true;
  const walk = async (dir: string): Promise<void> => {
    // A folder that cannot be read (gone, not ours) holds nothing Arbor can keep.
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (files.size >= MAX_FILES) {
        complete = false;
        return;
      }
      const absolute = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) await walk(absolute);
        continue;
      }
      if (!entry.isFile()) continue;
      // A file gone between the listing and the stat is not there: nothing to keep.
      const stat = await fs.stat(absolute).catch(() => undefined);
      if (!stat) continue;
      let text: string | undefined;
      if (stat.size <= MAX_FILE_BYTES && kept + stat.size <= MAX_KEPT_BYTES) {
        text = await textOf(absolute);
        if (text !== undefined) kept += stat.size;
      }
      files.set(path.relative(folder, absolute).split(path.sep).join('/'), { size: stat.size, mtimeMs: stat.mtimeMs, text });
    }
  };
  await walk(folder);
  return { files, complete };
}

async function textOf(file: string): Promise<string | undefined> {
  // A file that cannot be read (gone, not ours) is not kept: its change is named as one Undo cannot restore.
  const bytes = await fs.readFile(file).catch(() => undefined);
  return bytes && !bytes.includes(0) ? bytes.toString('utf8') : undefined;
}

/**
 * Starts watching `folder` for `agent`'s turn; the function it resolves with records what the
 * turn changed (call it once, when the turn has ended).
 */
export async function watchTurn(agent: Agent, folder: string, changes: ChangeSets, workspace: WorkspacePort): Promise<() => Promise<void>> {
  const before = await snapshot(folder);
  return async () => {
    const after = await snapshot(folder);
    const unkept: string[] = [];
    for (const relative of new Set([...before.files.keys(), ...after.files.keys()])) {
      const was = before.files.get(relative);
      const now = after.files.get(relative);
      if (was && now && was.size === now.size && was.mtimeMs === now.mtimeMs) continue;
      if ((was && was.text === undefined) || (now && now.text === undefined)) {
        unkept.push(relative);
        continue;
      }
      // A file past the start's limits is not known to have been absent: it is not taken for created.
      if (!was && !before.complete) continue;
      const original = was ? was.text! : null;
      const written = now ? now.text! : null;
      if (original === written) continue;
      // A path the workspace refuses (outside it through a link) is not the agent's change to record.
      const file = await workspace.resolve(path.join(folder, relative)).catch(() => undefined);
      if (!file) continue;
      await changes.recordBefore(agent.id, file, original);
      await changes.recordWritten(agent.id, file.relative, written);
    }
    if (unkept.length > 0) {
      const names = unkept.slice(0, 10).join(', ') + (unkept.length > 10 ? `, and ${unkept.length - 10} more` : '');
      agent.append({
        type: 'assistant_text',
        at: isoNow(),
        text: `${unkept.length} file(s) changed in this turn that Arbor did not keep a copy of (not text, over 1 MiB, or past the 64 MiB kept per turn), so Review cannot undo them: ${names}.`,
      });
    }
  };
}

/** Watches the agent's folder for its turn, unless it works in a worktree of its own (whose changes are that worktree's). */
export async function watchAgentTurn(agent: Agent, folder: string, services: Pick<ExternalAgentServices, 'changes' | 'workspace'>): Promise<(() => Promise<void>) | undefined> {
  const workspace = services.workspace(agent);
  if (agent.run.workspace || !workspace) return undefined;
  return watchTurn(agent, folder, services.changes, workspace);
}
