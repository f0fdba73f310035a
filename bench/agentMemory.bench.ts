/*
 * Memory per model step of long-running agents: figures, not assertions. Run with
 * `npm run bench:tree` (node --expose-gc, so heap figures are taken after a full collection).
 *
 * Agents loop on the scripted model, one tool call per step, until 10,000 steps were made in
 * all; the heap is measured (after a full collection, while every agent waits in a model call)
 * at 2,000 steps and at 10,000. Printed: bytes retained per step (the slope between the two)
 * and per agent, and beside them what the conversation itself must keep per step (the text the
 * model is sent back: its reply, the tool call and the tool's result), so what the runtime adds
 * on top shows. Steady per-step figures at both sizes mean memory grows with the conversation
 * and nothing else.
 *   1. one agent, 10,000 steps of a small tool;
 *   2. 100 agents, 100 steps each;
 *   3. one agent whose tool returns the listing of 100 agents (~the list_agents the editor's
 *      load test loops on): what a big tool result costs per step.
 */
import * as z from 'zod';
import type { Agent } from '../src/core/agents/agent';
import type { ModelChunk, ModelProvider, ModelRequest } from '../src/core/models/types';
import { Runtime, type RuntimeTool } from '../src/core/runtime';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const heap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/** One short of 10,000: a turn may make at most 10,000 model calls, and the agent rests in the next. */
const TOTAL_STEPS = 9_999;
const FIRST_MARK = 2_000;

const listing = JSON.stringify({ agents: Array.from({ length: 100 }, (_, i) => ({ agent_id: `0193b7c2-7a1e-7c3f-9d2e-${String(i).padStart(12, '0')}`, label: `Worker-${i}`, status: 'running', kind: 'continuable' })) });

/** A tool whose every result is a string of its own, as a real tool's is (never one shared string). */
function tool(result: string): RuntimeTool {
  const data: unknown = JSON.parse(JSON.stringify(result));
  const copy = z.object({ data: z.string() });
  const noArgs = z.object({});
  return { name: 'probe', description: 'returns a fixed result', schema: () => noArgs, readOnly: true, run: () => ({ content: copy.parse(JSON.parse(JSON.stringify({ data }))).data }) };
}

/**
 * A model that answers every call with one tool call, and holds every caller at the step marks
 * until the heap was measured, so it is measured with each agent at rest in a model call.
 */
class SteppingModel implements ModelProvider {
  readonly id = 'stepping';
  readonly label = 'stepping';
  steps = 0;
  private held: Array<() => void> = [];
  private markReached: (() => void) | undefined;
  private mark = Infinity;

  constructor(private readonly agents: number) {}

  /** Resolves when `steps` calls were answered and every agent waits in its next call. */
  until(steps: number): Promise<void> {
    this.mark = steps;
    return new Promise((resolve) => (this.markReached = resolve));
  }

  release(): void {
    const held = this.held;
    this.held = [];
    for (const go of held) go();
  }

  async *stream(request: ModelRequest): AsyncGenerator<ModelChunk> {
    if (this.steps >= this.mark) {
      await new Promise<void>((resolve) => {
        this.held.push(resolve);
        if (this.held.length === this.agents) this.markReached?.();
      });
    }
    this.steps++;
    if (request.signal.aborted) return;
    yield { type: 'text', text: `Step ${request.step}: looking again.` };
    yield { type: 'tool_call', call: { id: `call-${request.call}`, name: 'probe', arguments: '{}' } };
    yield { type: 'usage', inputTokens: 100, outputTokens: 20 };
  }
}

/** What the conversation must keep per step: reply text, tool call and result, as JSON. */
function conversationBytes(agents: readonly Agent[]): number {
  let bytes = 0;
  for (const agent of agents) for (const message of agent.conversation) bytes += JSON.stringify(message).length;
  return bytes;
}

async function run(name: string, agents: number, result: string): Promise<void> {
  const model = new SteppingModel(agents);
  const runtime = new Runtime({ model, tools: [tool(result)], limits: { maxStepsPerTurn: 10_000, maxLiveChildren: agents } });
  const base = heap();
  const first = model.until(FIRST_MARK);
  const started: Agent[] = [];
  for (let i = 0; i < agents; i++) started.push(runtime.startRoot({ prompt: 'keep looking', label: `agent ${i}` }));
  const watchdog = setInterval(() => {
    const ended = started.find((a) => a.status === 'idle');
    if (ended) console.error(`  ${ended.label} stopped early: ${JSON.stringify(ended.lastTurnEnd)}`);
  }, 2000);
  await first;
  const atFirst = heap();
  const conversationAtFirst = conversationBytes(started);
  const second = model.until(TOTAL_STEPS);
  model.release();
  await second;
  const atEnd = heap();
  const conversationAtEnd = conversationBytes(started);
  clearInterval(watchdog);
  const perStep = (atEnd - atFirst) / (TOTAL_STEPS - FIRST_MARK);
  const perStepConversation = (conversationAtEnd - conversationAtFirst) / (TOTAL_STEPS - FIRST_MARK);
  const perStepEarly = (atFirst - base) / FIRST_MARK;
  console.log(
    `  ${name}: ${Math.round(perStep)} bytes retained per step from ${FIRST_MARK} to ${TOTAL_STEPS} steps (${Math.round(perStepEarly)} over the first ${FIRST_MARK}), ` +
      `${Math.round((atEnd - base) / agents / 1024)} KiB per agent after ${Math.round(TOTAL_STEPS / agents)} steps each; ` +
      `the conversation's own text is ${Math.round(perStepConversation)} bytes per step (${(perStep / Math.max(1, perStepConversation)).toFixed(1)}x)`,
  );
  for (const agent of started) runtime.stop(agent);
  void model.until(Infinity);
  model.release();
  await Promise.all(started.map((a) => a.whenIdle()));
  await runtime.dispose();
}

async function main(): Promise<void> {
  console.log(`Memory per model step (in-memory session logs; ${TOTAL_STEPS} steps in all)`);
  await run('1 agent, a small tool result', 1, 'ok');
  await run('100 agents, a small tool result', 100, 'ok');
  await run(`1 agent, a listing of 100 agents as the result (${listing.length} bytes)`, 1, listing);
}

void main();
