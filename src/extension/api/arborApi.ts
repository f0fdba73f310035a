// What Arbor exports to other extensions. It is a public entry point: requests are parsed at the
// trust boundary, so no caller can choose the interaction mode or disable clarification.
import * as z from 'zod';
import { ArborError, runLimitsSchema, type RunLimitsInput, type Runtime } from '../../core';
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

/** The API other extensions get from `vscode.extensions.getExtension('arbor.arbor').exports`. */
export interface ArborApi {
  /** The version of the running Arbor extension (from its manifest). */
  readonly version: string;
  /**
   * Start an interactive root agent: `{ prompt, label? }`. Internal run keys are rejected.
   * `options.limits` sets this run's limits and budgets (the keys of the `arbor.limits` setting).
   */
  startAgent(request: unknown, options?: unknown): { id: string };
  /** Stop one agent's current turn, as the tree's Stop does. */
  stopAgent(id: string): { accepted: true };
  listAgents(): AgentSummary[];
  /** Only when the extension host runs Arbor's own tests (ARBOR_TESTING=1). */
  readonly testing?: ArborTesting;
}

export interface ArborApiDeps {
  version: string;
  runtime: Runtime;
  /** Starts an interactive root: the API never chooses another mode. */
  startInteractive(request: PublicRunRequest, limits?: RunLimitsInput): Agent;
}

/** What a caller may set for one run: only its limits, each checked like the setting. */
const startOptionsSchema = z.object({ limits: runLimitsSchema.partial().strict().optional() }).strict();

export function createArborApi({ version, runtime, startInteractive }: ArborApiDeps): ArborApi {
  return {
    version,
    startAgent(request: unknown, options?: unknown) {
      const parsed = parsePublicRunRequestFrom('api', request);
      const start = startOptionsSchema.safeParse(options ?? {});
      if (!start.success) throw new ArborError('INPUT_INVALID', `startAgent options are invalid: ${z.prettifyError(start.error)}`);
      return { id: startInteractive(parsed, start.data.limits).id };
    },
    stopAgent(id: string) {
      if (typeof id !== 'string') throw new ArborError('INPUT_INVALID', 'stopAgent takes an agent id (a string).');
      const agent = runtime.agents.get(id);
      return agent ? runtime.stop(agent) : { accepted: true };
    },
    listAgents() {
      return runtime.agents.all().map((a) => ({ id: a.id, label: a.label, kind: a.kind, status: a.status, parentId: runtime.agents.parentOf(a)?.id }));
    },
  };
}
