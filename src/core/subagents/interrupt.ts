import { ArborError } from '../errors';
import type { Agent } from '../agents/agent';
import type { AgentRegistry } from '../agents/registry';
import type { Activation } from './activation';

/** Who asks for an interrupt: a human presenting the durable parent address, or a live ancestor. */
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
  } else if (!activation.ancestry.has(authority.agent)) {
    throw new ArborError('SUBAGENT_UNAUTHORIZED', `Agent ${targetSessionId} is not one of your descendants.`);
  }
  if (activation.disposing) return { accepted: true };
  activation.agent.interrupt(authority.kind, authority.kind === 'ancestor' ? authority.agent.id : undefined);
  return { accepted: true };
}
