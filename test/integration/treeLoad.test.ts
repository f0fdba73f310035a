import * as assert from 'assert';
import * as vscode from 'vscode';
import type { Agent } from '../../src/core/agents/agent';
import { ScriptedModel } from '../../src/core/models/scriptedModel';
import type { ArborTesting } from '../../src/extension/extension';
import { formatTokens } from '../../src/extension/agents/agentPresentation';
import { loadTourScript, workerLabel } from '../support/loadTour';
import { arborTesting, sleep, turnEnds, waitFor } from './support';
import { ui } from './ui';

// The Agents view under a steady load, read through the browser: a root starts WORKERS
// continuable subagents in one step, each polling every 50 ms (list_agents, then a wait), so
// thousands of runtime events a second reach the tree while the user looks at it and clicks.

const WORKERS = 100;
const loadScript = loadTourScript(WORKERS);

/** "12.3k" -> 12300: the token figure a row shows, read back. */
function tokensShown(text: string): number | undefined {
  const match = /· ([\d.]+)(k|M)? tok/.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * (match[2] === 'k' ? 1000 : match[2] === 'M' ? 1_000_000 : 1);
}

/** "running 12s", "listing agents · 2m 5s" -> seconds: the row's elapsed-time part, read back. */
function secondsShown(text: string): number | undefined {
  for (const part of text.split(' · ')) {
    const match = /(?:^|running )(?:(\d+)h ?)?(?:(\d+)m ?)?(?:(\d+)s)?$/.exec(part.trim());
    if (match && (match[1] ?? match[2] ?? match[3]) !== undefined) return Number(match[1] ?? 0) * 3600 + Number(match[2] ?? 0) * 60 + Number(match[3] ?? 0);
  }
  return undefined;
}

/** Polls the row as the page shows it until `accept` holds; returns the row's text then. */
async function waitForRow(rowText: string, accept: (label: string) => boolean, what: string, timeoutMs: number): Promise<string> {
  const t0 = Date.now();
  let last: string | null = null;
  for (;;) {
    last = await ui.rowLabel(rowText);
    if (last !== null && accept(last)) return last;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; the row showed: ${JSON.stringify(last)}`);
    await sleep(50);
  }
}

describe('Agents view under load', function () {
  this.timeout(180_000);
  let t: ArborTesting;
  let root: Agent | undefined;

  before(async () => {
    t = await arborTesting();
    await vscode.commands.executeCommand('workbench.view.extension.arbor');
  });

  after(async () => {
    if (root && t.runtime.agents.isLive(root)) {
      for (const child of t.runtime.agents.childrenOf(root)) await t.runtime.end(child);
      await t.runtime.end(root);
    }
  });

  it('keeps every row current under thousands of events a second, and a real inline Stop on a worker shows "stopped"', async function () {
    ui.requireBrowser(this);
    root = t.runtime.startRoot({
      prompt: 'start the workers',
      label: 'Load',
      limits: { maxLiveChildren: 200, maxStepsPerTurn: 10_000 },
      model: new ScriptedModel(loadScript),
    });
    const workers = (): Agent[] => t.runtime.agents.childrenOf(root!);
    await waitFor(() => workers().length === WORKERS && workers().every((w) => w.status === 'running'), `${WORKERS} workers to run`, 60_000);
    const target = workers().find((w) => w.label === workerLabel(2))!;
    const watched = workers().find((w) => w.label === workerLabel(4))!;
    await t.treeView.reveal(target, { select: false, focus: false });
    const heapBefore = process.memoryUsage().heapUsed;
    const cpuBefore = process.cpuUsage();
    const eventsBefore = { count: 0 };
    const counting = t.runtime.onEvent(() => eventsBefore.count++);
    const repaintsBefore = t.observed.repaints;
    const windowStart = Date.now();

    // The load is steady from here on: what the page shows must keep up with the runtime.
    // Twice, a second apart: a row that froze would pass the first check at most.
    for (let round = 0; round < 3; round++) {
      await sleep(1000);
      const askedAt = Date.now();
      const tokens = watched.usage.inputTokens + watched.usage.outputTokens;
      const seconds = Math.floor((Date.now() - watched.turnStartedAt!) / 1000);
      const wanted = tokensShown(`· ${formatTokens(tokens)} tok`)!;
      const shown = await waitForRow(
        workerLabel(4),
        (label) => (tokensShown(label) ?? -1) >= wanted && (secondsShown(label) ?? -1) >= seconds,
        `the ${workerLabel(4)} row to show at least ${formatTokens(tokens)} tok and ${seconds}s (the runtime's figures a moment ago)`,
        // Generous: the target is about one second; a frozen view never gets there while the load lasts.
        15_000,
      );
      console.log(`      the ${workerLabel(4)} row caught up with the runtime in ${Date.now() - askedAt} ms: ${shown}`);
    }
    const seconds = (Date.now() - windowStart) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    counting.dispose();
    console.log(
      `      under load: ${Math.round(eventsBefore.count / seconds)} runtime events/s, ${((t.observed.repaints - repaintsBefore) / seconds).toFixed(1)} repaints/s, ` +
        `extension host CPU ${Math.round(((cpu.user + cpu.system) / 1000 / (seconds * 1000)) * 100)}%, heap ${Math.round(heapBefore / 1e6)} -> ${Math.round(process.memoryUsage().heapUsed / 1e6)} MB`,
    );

    await waitForRow(workerLabel(2), (label) => secondsShown(label) !== undefined, `the ${workerLabel(2)} row to show it running (its turn's time)`, 15_000);
    await ui.clickInlineAction(workerLabel(2), 'Stop');
    await waitFor(() => turnEnds(target).length >= 1, `the turn of ${workerLabel(2)} to end`, 30_000);
    assert.deepStrictEqual(turnEnds(target), ['aborted:user'], 'the click stopped that worker');
    const stopped = await waitForRow(workerLabel(2), (label) => /· stopped/.test(label), `the ${workerLabel(2)} row to show "stopped"`, 15_000);
    assert.strictEqual(secondsShown(stopped), undefined, 'a stopped row shows no running time');
    assert.strictEqual(watched.status, 'running', 'its siblings keep running');
    assert.ok(workers().filter((w) => w.status === 'running').length === WORKERS - 1, 'only the clicked worker stopped');
    await ui.screenshot('tree-under-load-worker-stopped');
  });
});
