import type { SessionHeader } from './types';

/**
 * Durable lineage read from session headers: what the history says about who delegated to
 * whom. It is for display and navigation only; it never grants authority over a live agent.
 */

interface HasHeader {
  header: SessionHeader;
}

/** Sessions whose header names `sessionId` as their parent, in the order given. */
export function childrenOf<T extends HasHeader>(entries: readonly T[], sessionId: string): T[] {
  return entries.filter((e) => e.header.parentSession === sessionId);
}

/**
 * The recorded parents of `sessionId`, nearest first, as far as the given entries reach.
 * Stops at a missing parent and at a cycle (which only a hand-edited file can make).
 */
export function ancestorsOf<T extends HasHeader>(entries: readonly T[], sessionId: string): T[] {
  const byId = new Map(entries.map((e) => [e.header.id, e] as const));
  const seen = new Set<string>([sessionId]);
  const out: T[] = [];
  let parent = byId.get(sessionId)?.header.parentSession;
  while (parent !== undefined && !seen.has(parent)) {
    const entry = byId.get(parent);
    if (!entry) break;
    seen.add(parent);
    out.push(entry);
    parent = entry.header.parentSession;
  }
  return out;
}
