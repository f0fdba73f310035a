import type * as acp from '@agentclientprotocol/sdk';
import type { ArborError } from '../errors';

/**
 * What one external agent's protocol session runs over: the pipes of a process Arbor started
 * (processCarrier.ts), or a network connection to an agent served elsewhere (networkCarrier.ts).
 * The session (acpConnection.ts) is the same over either: the same requests, Stop, approvals and
 * subagents; only how the agent is reached, how it is ended and why it was lost differ.
 *
 * Invariants every carrier keeps:
 * - `whenLost` settles exactly once the session can no longer be used, with a typed error that
 *   says why and what the next message does (starts the agent again, or connects again);
 * - `kill` ends Arbor's side at once and may be called more than once;
 * - nothing a carrier says (its errors, its hints) carries a secret it was given.
 */
export interface AcpCarrier {
  /** The messages of the protocol, both ways. */
  readonly stream: acp.Stream;
  /** Settles once the session over `connection` cannot be used any more, with why. */
  whenLost(connection: Pick<acp.ClientConnection, 'signal'>): Promise<ArborError>;
  /** The agent's side is gone although its connection may still speak: nothing it still asks is done. */
  gone(): boolean;
  /** Ends the agent's side: every process of a local agent; a served agent's connection. */
  kill(): void;
  /** A local agent's process id. */
  readonly pid?: number;
  /** Said when the agent does not finish starting in time: what to check. */
  readonly startHint: string;
}
