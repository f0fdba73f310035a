import { ArborError } from '../errors';
import type { Agent } from '../agents/agent';
import type { AgentRegistry } from '../agents/registry';
import type { Activation } from './activation';

/**
 * Who asks for an interrupt by id: a human presenting the durable parent address (a caller that
 * brings an id from outside: the API, a webview), or a live ancestor. The user's Stop of an agent
 * the editor holds is interruptLive.
 */
export type InterruptAuthority = { kind: 'user'; parentSessionId: string } | { kind: 'ancestor'; agent: Agent };

/**
 * `accepted` means the cancel signal was issued, or there was nothing to stop; never "the turn
 * has ended". A one-shot target is accepted too, but says that nothing was signalled and why:
 * its lifecycle belongs to the agent holding it, so it is stopped only through that holder.
 */
export type InterruptResult =
  | { accepted: true; effect?: undefined }
  | {
      accepted: true;
      effect: 'none';
      reason: 'one-shot';
      /** The live agent whose turn holds the one-shot target; stopping it stops the target. */
      holderId?: string;
      message: string;
    };

/**
 * Stop only the live target's current turn, on a user's or an ancestor's authority. Checks, in
 * order: an ancestor caller must be the registry's exact live entry and not the target; an
 * absent target (unknown, one-shot, settled) is an accepted no-op (a one-shot one says why);
 * a user must present the target's durable parent address; an ancestor must be in the target's
 * recorded ancestry; a target whose disposal has begun is an accepted no-op. Authorises
 * synchronously and returns at once: accepted means the signal was issued (or there was
 * nothing to stop), not that the turn has ended. The agent records the interrupt.
 */
export function interruptTarget(
  targetSessionId: string,
  authority: InterruptAuthority,
  agents: Pick<AgentRegistry, 'isLive' | 'get' | 'ownerOf'>,
  activation: Activation | undefined,
): InterruptResult {
  if (authority.kind === 'ancestor') {
    if (!agents.isLive(authority.agent)) {
      throw new ArborError('SUBAGENT_UNAUTHORIZED', 'The interrupting agent is not live.');
    }
    if (authority.agent.id === targetSessionId) {
      throw new ArborError('SUBAGENT_UNAUTHORIZED', 'An agent cannot interrupt itself; finish the turn instead.');
    }
  }
  if (!activation) {
    const oneShot = agents.get(targetSessionId);
    if (oneShot?.kind === 'one-shot') {
      const holder = agents.ownerOf(oneShot);
      return {
        accepted: true,
        effect: 'none',
        reason: 'one-shot',
        holderId: holder?.id,
        message:
          `"${oneShot.label}" is a one-shot subagent: it belongs to ${holder ? `"${holder.label}" (${holder.id}), which is waiting for its result` : 'the agent waiting for its result'}, ` +
          'and cannot be stopped on its own. Nothing was stopped; stop that agent to stop it.',
      };
    }
    return { accepted: true };
  }
  if (authority.kind === 'user') {
    if (activation.agent.log.header.parentSession !== authority.parentSessionId) {
      throw new ArborError('SUBAGENT_UNAUTHORIZED', `Agent ${targetSessionId} does not belong to parent ${authority.parentSessionId}.`);
    }
  } else if (!activation.hasAncestor(authority.agent)) {
    throw new ArborError('SUBAGENT_UNAUTHORIZED', `Agent ${targetSessionId} is not one of your descendants.`);
  }
  if (activation.disposing) return { accepted: true };
  activation.agent.interrupt(authority.kind, authority.kind === 'ancestor' ? authority.agent.id : undefined);
  return { accepted: true };
}

/**
 * The user's Stop of an agent the editor holds (a tree node, a conversation view): the human at
 * the editor is the authority and the exact live registry entry is the proof, so nothing is read
 * from the target's durable header (an address taken from the header it is checked against
 * could never be refused). Then as interruptTarget: an object that is not the live entry (a
 * stale one, even if a live agent now has its id), a continuable agent that is not its own
 * Activation's, or one whose disposal has begun is an accepted no-op; otherwise only its current
 * turn is interrupted, its queue parked, nothing below it touched. One-shot agents are refused
 * before this (Runtime.stop): they belong to their holder.
 */
export function interruptLive(agent: Agent, agents: Pick<AgentRegistry, 'isLive'>, activation: Activation | undefined): InterruptResult {
  if (!agents.isLive(agent)) return { accepted: true };
  if (agent.kind === 'continuable' && (activation?.agent !== agent || activation.disposing)) return { accepted: true };
  agent.interrupt('user');
  return { accepted: true };
}
