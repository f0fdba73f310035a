import { isoNow } from '../clock';
import { SESSION_FORMAT_VERSION, type SessionHeader } from './types';

/**
 * The header of a new session that continues `previous` (resume as a new unowned agent): a new
 * id and creation time, `resumedFrom` pointing back, the current format version. Recorded
 * lineage (`parentSession`, `delegationDepth`, `kind`) is kept as history; it grants nothing:
 * whether the resumed agent may ask the user is decided by who owns it at run time.
 */
export function resumedSessionHeader(
  previous: SessionHeader,
  next: { id: string; createdAt?: string; interactionMode?: SessionHeader['interactionMode'] },
): SessionHeader {
  return {
    ...previous,
    version: SESSION_FORMAT_VERSION,
    id: next.id,
    createdAt: next.createdAt ?? isoNow(),
    interactionMode: next.interactionMode ?? previous.interactionMode,
    resumedFrom: previous.id,
  };
}
