import type { Agent } from '../../../src/core/agents/agent';
import type { RunLimitsInput } from '../../../src/core/limits';
import { ScriptedModel, type ModelScript } from '../../../src/core/models/scriptedModel';
import type { ModelChunk, ModelProvider, ModelRequest } from '../../../src/core/models/types';
import { Runtime, type RuntimeTool } from '../../../src/core/runtime';
import type { SessionEvent, TurnEndReason } from '../../../src/core/sessions/types';

/** A runtime on the scripted model with an optional wrapper that records every model call. */
export function makeRuntime(script: ModelScript, options: { limits?: RunLimitsInput; tools?: RuntimeTool[]; workspace?: string } = {}) {
  const aborts: ModelRequest[] = [];
  const calls: ModelRequest[] = [];
  const scripted = new ScriptedModel(script, { onAbortObserved: (r) => aborts.push(r) });
  const model: ModelProvider = {
    id: 'recording',
    label: 'recording',
    stream(request: ModelRequest): AsyncIterable<ModelChunk> {
      calls.push({ ...request, messages: request.messages.slice() });
      return scripted.stream(request);
    },
  };
  let n = 0;
  const runtime = new Runtime({ model, limits: options.limits, tools: options.tools, workspace: options.workspace, newId: (label) => `${label}#${++n}` });
  return { runtime, aborts, calls };
}

export function turnEnds(agent: Agent): Array<{ reason: TurnEndReason; cause?: string }> {
  return agent.log.events
    .filter((e): e is Extract<SessionEvent, { type: 'turn_end' }> => e.type === 'turn_end')
    .map((e) => (e.cause ? { reason: e.reason, cause: e.cause } : { reason: e.reason }));
}

export function reasons(agent: Agent): string[] {
  return turnEnds(agent).map((e) => (e.cause ? `${e.reason}:${e.cause}` : e.reason));
}

export function userMessages(agent: Agent): string[] {
  return agent.log.events.filter((e): e is Extract<SessionEvent, { type: 'user_message' }> => e.type === 'user_message').map((e) => e.text);
}

export function toolResults(agent: Agent): Array<{ name: string; content: string; isError?: boolean }> {
  return agent.log.events
    .filter((e): e is Extract<SessionEvent, { type: 'tool_result' }> => e.type === 'tool_result')
    .map((e) => ({ name: e.name, content: e.content, isError: e.isError }));
}

export const tick = (ms = 0): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Wait until `predicate` holds, polling the event loop; fails with `what` after `ms`. */
export async function until(predicate: () => boolean, what: string, ms = 2000): Promise<void> {
  const t0 = Date.now();
  while (!predicate()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await tick(1);
  }
}

export function childByLabel(runtime: Runtime, label: string): Agent {
  const a = runtime.agents.all().find((x) => x.label === label);
  if (!a) throw new Error(`no live agent labelled ${label}`);
  return a;
}
