/**
 * Stop on an external agent: the time from the user's Stop to the end of the agent's turn, with
 * the ACP test agent (test/fixtures/acp-test-agent, a real child process over stdio) told to
 * `hang` until it is cancelled. Stop sends `session/cancel`; the turn ends when the agent
 * answers the pending `session/prompt` with `cancelled`. Run with `npm run bench:external`.
 * Prints figures, asserts nothing.
 *
 *   external     Stop -> turn end of the external agent (one process, a new `hang` turn per sample)
 *   in-process   the baseline, measured in the same run: Stop -> turn end of a scripted Arbor
 *                agent hanging in a model call
 *
 * Samples alternate between the two so both see the same load; each figure is the median and
 * the 95th percentile of ARBOR_BENCH_SAMPLES samples (default 30), and the ratio of medians.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Agent } from '../src/core/agents/agent';
import { startExternalRoot } from '../src/core/external';
import { ScriptedModel } from '../src/core/models/scriptedModel';
import type { ModelProvider } from '../src/core/models/types';
import { Runtime } from '../src/core/runtime';
import { testAgentConfig } from '../test/support/acpTestAgent';

const SAMPLES = Number(process.env.ARBOR_BENCH_SAMPLES ?? 30);
const READY_TIMEOUT_MS = 60_000;

function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

async function until(predicate: () => boolean, what: string): Promise<void> {
  const t0 = Date.now();
  while (!predicate()) {
    if (Date.now() - t0 > READY_TIMEOUT_MS) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** Stops `agent` and resolves with the milliseconds until the runtime records its turn end. */
function timeStop(runtime: Runtime, agent: Agent): Promise<number> {
  return new Promise((resolve) => {
    let t0 = 0;
    const listening = runtime.onEvent((e) => {
      if (e.type !== 'agent_changed' || e.agent !== agent || e.change.type !== 'turn_end') return;
      const elapsed = performance.now() - t0;
      listening.dispose();
      resolve(elapsed);
    });
    t0 = performance.now();
    runtime.stop(agent);
  });
}

async function main(): Promise<void> {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-bench-external-'));
  let modelCalls = 0;
  const scripted = new ScriptedModel({ version: 1, agents: { Busy: { turns: [[{ hang: true }]], afterLastTurn: 'repeat-last' } } });
  // Counts model calls, so a sample starts only once the scripted agent is inside one.
  const model: ModelProvider = { id: scripted.id, label: scripted.label, stream: (request) => (modelCalls++, scripted.stream(request)) };
  const runtime = new Runtime({ model, workspace });
  const external: number[] = [];
  const inProcess: number[] = [];
  try {
    const outside = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'hang' });
    const busy = runtime.startRoot({ prompt: 'work', label: 'Busy' });
    const hangs = (agent: Agent): number => agent.log.events.filter((e) => e.type === 'assistant_text' && e.text.includes('Working until cancelled')).length;
    for (let sample = 0; sample < SAMPLES; sample++) {
      if (sample > 0) {
        runtime.sendFromUser(outside, 'hang');
        runtime.sendFromUser(busy, 'work');
      }
      // The agent is at work: its "working" message of this turn has reached the session.
      await until(() => outside.status === 'running' && hangs(outside) === sample + 1, 'the external agent to be at work');
      external.push(await timeStop(runtime, outside));
      await outside.whenIdle();

      // One model call per turn (it hangs until the Stop): this turn's call has started.
      await until(() => busy.status === 'running' && modelCalls === sample + 1, 'the scripted agent to be in its model call');
      inProcess.push(await timeStop(runtime, busy));
      await busy.whenIdle();
    }
    const ends = outside.log.events.filter((e) => e.type === 'turn_end').map((e) => (e.type === 'turn_end' ? `${e.reason}:${e.cause ?? ''}` : ''));
    if (ends.some((end) => end !== 'aborted:user')) throw new Error(`an external turn did not end as stopped by the user: ${ends.join(', ')}`);
  } finally {
    await runtime.dispose();
    fs.rmSync(workspace, { recursive: true, force: true });
  }
  const row = (name: string, values: number[]): string =>
    `  ${name.padEnd(12)} median ${percentile(values, 0.5).toFixed(2).padStart(7)} ms   p95 ${percentile(values, 0.95).toFixed(2).padStart(7)} ms   max ${Math.max(...values).toFixed(2).padStart(7)} ms`;
  console.log(`Stop -> turn end, ${SAMPLES} samples each (alternating), Node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(2)}`);
  console.log(row('external', external));
  console.log(row('in-process', inProcess));
  console.log(`  ratio of medians (external / in-process): ${(percentile(external, 0.5) / percentile(inProcess, 0.5)).toFixed(1)}x`);
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
