// What Arbor exports to other extensions. It is a public entry point: every argument is parsed
// at the trust boundary, so no caller can choose the interaction mode or disable clarification.
import * as vscode from 'vscode';
import * as z from 'zod';
import { ArborError, once, type RunLimitsInput, type Runtime } from '../../core';
import { parseRunStartOptions } from '../commandArguments';
import type { Agent } from '../../core/agents';
import { parsePublicRunRequestFrom, type PublicRunRequest } from '../../core/interaction';
import type { ArborTesting } from '../testing';

/** A live agent as the exported API describes it. */
export interface AgentSummary {
  id: string;
  label: string;
  kind: 'root' | 'one-shot' | 'continuable';
  status: 'idle' | 'running';
  parentId?: string;
}

/** What happened to an agent, as the exported API reports it (`onDidChangeAgent`). */
export type ArborAgentEvent =
  | { type: 'started'; agent: AgentSummary }
  | { type: 'turnStarted'; agent: AgentSummary; turn: number }
  /** `reason`: completed, aborted, error, budget (a limit ended the turn), paused (a spent run budget or a runaway guard holds it), blocked; `result` is the turn's final text. */
  | { type: 'turnEnded'; agent: AgentSummary; turn: number; reason: string; cause?: string; result: string }
  | { type: 'ended'; agent: AgentSummary };

/** The API other extensions get from `vscode.extensions.getExtension('arbor.arbor').exports`. */
export interface ArborApi {
  /** The version of the running Arbor extension (from its manifest). */
  readonly version: string;
  /**
   * Start an interactive root agent: `{ prompt, label? }`. Internal run keys are rejected.
   * `options.limits` sets this run's limits and budgets (the keys of the `arbor.limits` setting).
   */
  startAgent(request: unknown, options?: unknown): { id: string };
  /** Stop one agent's current turn, as the tree's Stop does; its queued messages wait. */
  stopAgent(id: string): { accepted: true };
  /** Queue a message for a live root or continuable agent, waking it (as Send Message does). */
  sendMessage(id: string, text: string): void;
  /** Every live agent, subagents included. */
  listAgents(): AgentSummary[];
  /** Fires when an agent starts, starts or ends a turn, or ends. */
  readonly onDidChangeAgent: vscode.Event<ArborAgentEvent>;
  /** Only when the extension host runs Arbor's own tests (ARBOR_TESTING=1). */
  readonly testing?: ArborTesting;
}

export interface ArborApiDeps {
  version: string;
  runtime: Runtime;
  /** Starts an interactive root: the API never chooses another mode. */
  startInteractive(request: PublicRunRequest, limits?: RunLimitsInput): Agent;
  /** Owns the event emitter (the extension's subscriptions). */
  subscriptions: vscode.Disposable[];
}

const agentIdSchema = once(() =>
  z.string().min(1).max(300),
);
const messageSchema = once(() =>
  z.string().max(100_000).regex(/\S/, 'must not be blank'),
);

function parseArgument<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ArborError('INPUT_INVALID', `${what} is invalid (${parsed.error.issues.map((i) => i.message).join('; ')}).`);
  return parsed.data;
}

export function createArborApi({ version, runtime, startInteractive, subscriptions }: ArborApiDeps): ArborApi {
  const summary = (a: Agent): AgentSummary => ({ id: a.id, label: a.label, kind: a.kind, status: a.status, parentId: runtime.agents.parentOf(a)?.id });
  const events = new vscode.EventEmitter<ArborAgentEvent>();
  subscriptions.push(
    events,
    runtime.onEvents(['agent_added', 'agent_removed', 'turn_start', 'turn_end'], (e) => {
      if (e.type === 'agent_added') events.fire({ type: 'started', agent: summary(e.agent) });
      else if (e.type === 'agent_removed') events.fire({ type: 'ended', agent: { ...summary(e.agent), parentId: e.parent?.id } });
      else if (e.change.type === 'turn_start') events.fire({ type: 'turnStarted', agent: summary(e.agent), turn: e.change.turn });
      else if (e.change.type === 'turn_end') {
        const { end } = e.change;
        events.fire({ type: 'turnEnded', agent: summary(e.agent), turn: end.turn, reason: end.reason, cause: end.cause, result: end.finalText });
      }
    }),
  );
  const liveAgent = (id: unknown): Agent | undefined => runtime.agents.get(parseArgument(agentIdSchema(), id, 'The agent id'));
  return {
    version,
    startAgent(request: unknown, options?: unknown) {
      const parsed = parsePublicRunRequestFrom('api', request);
      return { id: startInteractive(parsed, parseRunStartOptions('startAgent', options)).id };
    },
    stopAgent(id: string) {
      const agent = liveAgent(id);
      return agent ? runtime.stop(agent) : { accepted: true };
    },
    sendMessage(id: string, text: string) {
      const message = parseArgument(messageSchema(), text, 'The message');
      const agent = liveAgent(id);
      if (!agent) throw new ArborError('AGENT_DISPOSED', `No live agent has the id ${JSON.stringify(id)}; listAgents() names the live ones.`);
      runtime.sendFromUser(agent, message);
    },
    listAgents() {
      return runtime.agents.all().map(summary);
    },
    onDidChangeAgent: events.event,
  };
}
