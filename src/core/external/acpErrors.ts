import type * as acp from '@agentclientprotocol/sdk';
import * as z from 'zod';
import { ArborError } from '../errors';
import { once } from '../once';
import type { AuthMethodInfo } from './acpAnswers';
import { commandLineOf, type ExternalAgentConfig } from './config';
import { isRemoteAgent, SET_TOKEN_COMMAND_TITLE } from './networkCarrier';

/** The errors an external agent's start ends with that a person acts on: a sign-in to do, a session that cannot be reopened. */

/** A past session of an agent that cannot load one: History keeps it read-only. */
export function notResumable(name: string): ArborError {
  return new ArborError(
    'EXTERNAL_NOT_RESUMABLE',
    `The external agent ${name} cannot reopen a past session (it does not offer session/load), so History keeps this session read-only. Run the agent again to carry on.`,
    { name },
  );
}

/**
 * The message a person needs: which agent, why it says it cannot work (its own words, when it
 * gives any), and the whole command line to run to sign in.
 */
export function signInNeeded(config: ExternalAgentConfig, methods: readonly AuthMethodInfo[], reason?: string): ArborError {
  const how = methods.map((m) => `${m.name}${m.description ? ` (${m.description})` : ''}`);
  const ways = how.length ? ` It offers: ${how.join('; ')}.` : '';
  const why = reason ? ` It says: ${reason}${/[.!?]$/.test(reason) ? '' : '.'}` : '';
  return new ArborError(
    'EXTERNAL_AGENT_AUTH_REQUIRED',
    `The external agent ${config.name} needs you to sign in before it can work.${why}${ways} ${
      isRemoteAgent(config)
        ? `Sign in where it is served (${config.url}), or set the token it expects with "${SET_TOKEN_COMMAND_TITLE}", then send your message again.`
        : `Run \`${commandLineOf(config)}\` in a terminal and sign in there (or set its API key in the agent's environment), then run it again from Arbor.`
    }`,
    { name: config.name, methods: methods.map((m) => m.id), ...(reason ? { reason } : {}) },
  );
}

const authDataSchema = once(() => z.union([z.string(), z.object({ message: z.string().optional().catch(undefined), details: z.string().optional().catch(undefined) })]));

/** What an agent's "authentication required" error adds to those words, if anything. */
export function reasonOf(err: acp.RequestError): string | undefined {
  const data = authDataSchema().safeParse(err.data).data;
  const fromData = typeof data === 'string' ? data : (data?.message ?? data?.details);
  const own = err.message.replace(/^authentication required:?\s*/i, '').trim();
  return (fromData ?? own).trim() || undefined;
}
