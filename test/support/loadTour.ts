// The workload of the Agents view under load: shared by its integration suite (the tree in the
// browser) and a unit suite (what the runtime makes of it, such as its runaway guards).
import type { ModelScript } from '../../src/core/models/scriptedModel';

export const workerLabel = (i: number): string => `Worker-${String(i).padStart(2, '0')}`;

/**
 * A root `Load` starts `workers` continuable subagents in one step; each then polls: it lists
 * its subagents and waits 50 ms, in a loop, so each calls the model about 20 times a second.
 * The wait makes the loop a poll, which is what it is: the runaway guards leave it alone.
 */
export function loadTourScript(workers: number): ModelScript {
  return {
    version: 1,
    agents: {
      Load: {
        turns: [
          [
            { toolCalls: Array.from({ length: workers }, (_, i) => ({ name: 'start_subagent', arguments: { label: workerLabel(i), prompt: 'keep looking' } })) },
            { hang: true },
          ],
        ],
      },
      '*': {
        turns: [
          {
            steps: [{ toolCalls: [{ name: 'list_agents', arguments: {} }, { name: 'wait', arguments: { seconds: 0.05 } }], usage: { inputTokens: 100, outputTokens: 20 } }],
            loop: true,
          },
        ],
        afterLastTurn: 'repeat-last',
      },
    },
  };
}
