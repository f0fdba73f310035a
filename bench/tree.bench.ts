/*
 * The Agents tree under load: figures, not assertions. Run with `npm run bench:tree`.
 *
 * A root starts N continuable workers (N = 100, 1000) that call the scripted model in a loop,
 * so thousands of runtime events a second reach the tree provider, which runs on a stand-in for
 * the 'vscode' module. Between the provider and "the screen" stands a model of VS Code's
 * extension host (its 200 ms debounce of tree changes and its one-at-a-time refresh chain, to a
 * workbench that takes REFRESH_MS per repaint; test/support/treeViewHost.ts). Printed:
 *   - runtime events in per second, repaints out per second, rows named per repaint;
 *   - row builds per repaint beside rows named per repaint, counted in the same run: each row a
 *     repaint names should be built once (at the repaint; the host's getTreeItem reads it), and
 *     a row marked for its time only is built once to find it unchanged;
 *   - staleness: the longest a worker's change waited until a repaint naming its row was applied
 *     (rows with children are repainted for their own state only, by design, and not counted);
 *   - process CPU with the tree against the same load without it, measured in the same run.
 */
import '../test/support/vscodeStub';
import * as z from 'zod';
import { AgentsTreeProvider } from '../src/extension/agents/agentsTree';
import { realClock } from '../src/extension/agents/repaintQueue';
import type { Agent } from '../src/core/agents/agent';
import { ScriptedModel } from '../src/core/models/scriptedModel';
import { Runtime, type RuntimeTool } from '../src/core/runtime';
import { HostTreeView } from '../test/support/treeViewHost';

const SECONDS = Number(process.env.ARBOR_BENCH_SECONDS ?? 8);
const REFRESH_MS = 30;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const noop: RuntimeTool = { name: 'noop', description: 'does nothing', schema: z.object({}), readOnly: true, run: () => ({ content: 'ok' }) };

/** `delayMs` between each worker's model calls, or `hang`: every worker stays in one model call (only the clock repaints them). */
function loadScript(workers: number, delayMs: number | 'hang'): unknown {
  return {
    version: 1,
    agents: {
      Load: {
        turns: [[{ toolCalls: Array.from({ length: workers }, (_, i) => ({ name: 'start_subagent', arguments: { label: `w${i}`, prompt: 'loop' } })) }, { hang: true }]],
      },
      '*':
        delayMs === 'hang'
          ? { turns: [[{ hang: true }]] }
          : { turns: [{ steps: [{ delayMs, toolCalls: [{ name: 'noop', arguments: {} }], usage: { inputTokens: 100, outputTokens: 20 } }], loop: true }] },
    },
  };
}

interface Figures {
  eventsPerSecond: number;
  cpuPercent: number;
  repaintsPerSecond?: number;
  rowsPerRepaint?: { mean: number; max: number };
  /** Agent rows built while the load lasted, per repaint fired. */
  buildsPerRepaint?: number;
  staleMs?: number;
  hostQueueMax?: number;
}

async function phase(workers: number, delayMs: number | 'hang', withTree: boolean): Promise<Figures> {
  const runtime = new Runtime({ model: new ScriptedModel(loadScript(workers, delayMs)), tools: [noop], limits: { maxLiveChildren: workers + 1, maxStepsPerTurn: 10_000 } });
  const root = runtime.startRoot({ prompt: 'go', label: 'Load' });
  while (runtime.agents.liveChildCount(root) < workers) await sleep(20);
  await sleep(delayMs === 'hang' ? 500 : Math.max(500, delayMs * 2)); // every worker in its loop

  let provider: AgentsTreeProvider | undefined;
  let host: HostTreeView<Agent> | undefined;
  const waiting = new Map<Agent, number>();
  let stale = 0;
  const repaints: number[] = [];
  if (withTree) {
    const tree = new AgentsTreeProvider(runtime, runtime.interaction);
    provider = tree;
    host = new HostTreeView<Agent>(
      realClock,
      REFRESH_MS,
      // The host asks for every row it repaints (the whole tree: the top level and below).
      (nodes) => {
        for (const agent of nodes ?? [...tree.getChildren(), ...runtime.agents.all()]) tree.getTreeItem(agent);
      },
      (nodes) => {
        const now = performance.now();
        for (const agent of nodes ?? [...waiting.keys()]) {
          const since = waiting.get(agent);
          if (since === undefined) continue;
          stale = Math.max(stale, now - since);
          waiting.delete(agent);
        }
      },
    );
    tree.onDidChangeTreeData((change) => {
      repaints.push(change === undefined ? runtime.agents.size : Array.isArray(change) ? change.length : 1);
      host!.debounce.fire(change);
    });
    // The workbench's first fetch: every row.
    for (const agent of [...tree.getChildren(), ...runtime.agents.all()]) tree.getTreeItem(agent);
  }
  if (withTree) repaints.length = 0;
  const builds0 = provider?.rowBuilds ?? 0;
  let events = 0;
  const counting = runtime.onEvent((e) => {
    events++;
    if (e.type === 'agent_changed' && e.change.type !== 'log' && runtime.agents.liveChildCount(e.agent) === 0 && !waiting.has(e.agent)) {
      waiting.set(e.agent, performance.now());
    }
  });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await sleep(SECONDS * 1000);
  const elapsed = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const repaintsInWindow = repaints.slice();
  const builds = (provider?.rowBuilds ?? 0) - builds0;
  counting.dispose();
  await sleep(1500); // what is still waiting now never reached the screen while the load lasted
  const now = performance.now();
  for (const since of waiting.values()) stale = Math.max(stale, now - since - 1500);
  provider?.dispose();
  await runtime.dispose();
  const figures: Figures = {
    eventsPerSecond: events / (elapsed / 1000),
    cpuPercent: ((cpu.user + cpu.system) / 1000 / elapsed) * 100,
  };
  if (withTree) {
    figures.repaintsPerSecond = repaintsInWindow.length / (elapsed / 1000);
    figures.rowsPerRepaint = { mean: repaintsInWindow.reduce((a, b) => a + b, 0) / Math.max(1, repaintsInWindow.length), max: Math.max(0, ...repaintsInWindow) };
    figures.buildsPerRepaint = builds / Math.max(1, repaintsInWindow.length);
    figures.staleMs = stale;
    figures.hostQueueMax = host!.maxQueued;
  }
  return figures;
}

async function main(): Promise<void> {
  console.log(`Agents tree under load (${SECONDS} s per phase, a workbench taking ${REFRESH_MS} ms per repaint)`);
  for (const [workers, delayMs] of [
    [100, 50],
    [1000, 250],
    // Quiet rows the clock repaints each second for their elapsed time: each is built to see
    // whether it changed, and should not be built again when the host asks for it.
    [1000, 'hang'],
  ] as const) {
    const without = await phase(workers, delayMs, false);
    const withTree = await phase(workers, delayMs, true);
    console.log(
      `  ${workers} workers, ${delayMs === 'hang' ? 'each in one long model call' : `a model call each every ${delayMs} ms`}: ${Math.round(withTree.eventsPerSecond)} runtime events/s in, ` +
        `${withTree.repaintsPerSecond!.toFixed(1)} repaints/s out, rows per repaint mean ${withTree.rowsPerRepaint!.mean.toFixed(0)} max ${withTree.rowsPerRepaint!.max}, ` +
        `row builds per repaint ${withTree.buildsPerRepaint!.toFixed(1)} (${(withTree.buildsPerRepaint! / Math.max(1, withTree.rowsPerRepaint!.mean)).toFixed(2)} per row named), ` +
        `staleness max ${Math.round(withTree.staleMs!)} ms, host refresh queue max ${withTree.hostQueueMax}; ` +
        `CPU ${withTree.cpuPercent.toFixed(0)}% with the tree vs ${without.cpuPercent.toFixed(0)}% without (${Math.round(without.eventsPerSecond)} events/s)`,
    );
  }
}

void main();
