import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';

/**
 * The processes a command or an external agent started, found so that ending it ends them all.
 * Linux only (read from /proc); elsewhere nothing is found and only the process group is
 * signalled.
 *
 * A process belongs to a root when, at the time of the search, any of these holds:
 * - it is below the root by parent id, whatever group or session it moved to (found while every
 *   process between them lives);
 * - it is in the root's process group or session (the root is spawned detached, so it leads
 *   both): a process whose parent exited is reparented but stays in them unless it moved;
 * - its environment carries the root's tag (`ARBOR_PROCESS_TAG=<uuid>`), which Arbor sets on
 *   every command and external agent it starts and which everything they start inherits. This
 *   finds a process that left the tree, the group and the session, as `(setsid cmd &)` does.
 * Limit: a process that left all three and runs with an environment without the tag (started
 * with `env -i`, or by a program that builds a fresh environment) cannot be found.
 *
 * Invariants:
 * - Arbor's own process and its ancestors are never signalled, so a tag that leaked into
 *   Arbor's environment cannot make it end itself;
 * - a process recorded earlier is signalled again only while it is the same process (the same
 *   start time), so a pid reused in between is never hit;
 * - the tree, group and session rules (and the signal to the group) apply only while the root is
 *   still the process that was started (its start time, read when it was spawned) or while a
 *   process with the tag still leads back to its group: once the root is gone its pid may be
 *   reused, and only the tag still says what is ours.
 */

/** The variable that marks a command's or an external agent's processes. */
export const PROCESS_TAG_VARIABLE = 'ARBOR_PROCESS_TAG';

/** A root process and the tag its environment was given. */
export interface ProcessRoot {
  pid: number | undefined;
  tag: string;
  /** The root's start time as /proc gave it when it was spawned (see `rootOf`). */
  start?: string;
}

/** The root of a process just spawned with `tag`, identified by its start time. */
export function rootOf(pid: number | undefined, tag: string): ProcessRoot {
  return { pid, tag, start: pid ? readEntry(pid)?.start : undefined };
}

/** Processes found, by pid, with the start time that identifies each. */
export type FoundProcesses = Map<number, string>;

/** A fresh tag, and the environment entry that carries it. */
export function newProcessTag(): { tag: string; env: Record<string, string> } {
  const tag = randomUUID();
  return { tag, env: { [PROCESS_TAG_VARIABLE]: tag } };
}

interface ProcessEntry {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
  zombie: boolean;
  start: string;
}

function readEntry(pid: number): ProcessEntry | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    // The process ended while the table was read.
    return undefined;
  }
  // "pid (comm) state ppid pgrp session ... starttime(22nd)": comm may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pid, ppid: Number(fields[1]), pgrp: Number(fields[2]), session: Number(fields[3]), zombie: fields[0] === 'Z', start: fields[19] ?? '' };
}

function readTable(): ProcessEntry[] {
  let names: string[];
  try {
    names = fs.readdirSync('/proc');
  } catch {
    // No /proc to read: no process is found.
    return [];
  }
  const table: ProcessEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const entry = readEntry(Number(name));
    if (entry) table.push(entry);
  }
  return table;
}

function childrenByParent(table: readonly ProcessEntry[]): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const { pid, ppid } of table) {
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  }
  return children;
}

function below(root: number, children: ReadonlyMap<number, number[]>): number[] {
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    for (const pid of children.get(queue.shift()!) ?? []) {
      out.push(pid);
      queue.push(pid);
    }
  }
  return out;
}

/** The live processes below `root` by parent id (empty where /proc is not). */
export function descendantsOf(root: number): number[] {
  return below(root, childrenByParent(readTable()));
}

/** Arbor's own process and its ancestors: never ended by a search. */
function selfAndAncestors(table: readonly ProcessEntry[]): Set<number> {
  const byPid = new Map(table.map((e) => [e.pid, e]));
  const out = new Set<number>([1]);
  for (let pid: number | undefined = process.pid; pid && !out.has(pid); pid = byPid.get(pid)?.ppid) out.add(pid);
  return out;
}

function carriesTag(pid: number, marker: Buffer): boolean {
  let environ: Buffer;
  try {
    environ = fs.readFileSync(`/proc/${pid}/environ`);
  } catch {
    return false; // another user's process, or gone
  }
  return environ.subarray(0, marker.length - 1).equals(marker.subarray(1)) || environ.includes(marker);
}

/** Every live process that belongs to `root` now (see the module's rules), the root included. */
export function processesOf(root: ProcessRoot): FoundProcesses {
  return search(root, readTable()).found;
}

function search(root: ProcessRoot, table: readonly ProcessEntry[]): { found: FoundProcesses; groupIsOurs: boolean } {
  const protectedPids = selfAndAncestors(table);
  const found: FoundProcesses = new Map();
  const add = (entry: ProcessEntry | undefined): void => {
    if (entry && !entry.zombie && !protectedPids.has(entry.pid)) found.set(entry.pid, entry.start);
  };
  const byPid = new Map(table.map((e) => [e.pid, e]));
  const rootEntry = root.pid ? byPid.get(root.pid) : undefined;
  // Without a recorded start time the root is taken as the same process (a caller that spawned it just now).
  const rootIsOurs = rootEntry !== undefined && (root.start === undefined || rootEntry.start === root.start);
  if (rootIsOurs && root.pid) {
    add(rootEntry);
    for (const pid of below(root.pid, childrenByParent(table))) add(byPid.get(pid));
  }
  const marker = Buffer.from(`\0${PROCESS_TAG_VARIABLE}=${root.tag}\0`);
  let taggedInGroup = false;
  for (const entry of table) {
    if (found.has(entry.pid) || entry.zombie) continue;
    const inGroup = root.pid !== undefined && (entry.pgrp === root.pid || entry.session === root.pid);
    if (carriesTag(entry.pid, marker)) {
      add(entry);
      if (inGroup) taggedInGroup = true;
    } else if (rootIsOurs && inGroup) add(entry);
  }
  return { found, groupIsOurs: rootIsOurs || taggedInGroup };
}

/**
 * Sends `signal` to `root`'s process group and to every process that belongs to it now or was
 * found for it before (in `known`, while each is the same process); returns `known` with what
 * was found added. Where processes cannot be read (not Linux), only the group is signalled.
 */
export function signalProcesses(root: ProcessRoot, signal: NodeJS.Signals, known: FoundProcesses = new Map()): FoundProcesses {
  const table = readTable();
  const { found, groupIsOurs } = search(root, table);
  for (const [pid, start] of found) known.set(pid, start);
  // Where /proc cannot be read nothing proves the group gone, so it is signalled as before.
  if (root.pid && process.platform !== 'win32' && (groupIsOurs || table.length === 0)) send(-root.pid, signal);
  for (const [pid, start] of known) {
    const now = readEntry(pid);
    if (now && now.start === start && !now.zombie) send(pid, signal);
  }
  return known;
}

function send(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone, or not ours to signal.
  }
}
