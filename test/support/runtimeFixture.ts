import type { Agent } from '../../src/core/agents/agent';
import type { InteractionPrompt } from '../../src/core/interaction';
import type { Answer } from '../../src/core/sessions/types';
import type { RunLimitsInput } from '../../src/core/limits';
import { ScriptedModel, type ModelScript } from '../../src/core/models/scriptedModel';
import type { ModelChunk, ModelProvider, ModelRequest } from '../../src/core/models/types';
import { warnProcess, type OnProblem } from '../../src/core/problems';
import { Runtime, type RuntimeTool } from '../../src/core/runtime';

/** The scripted model, recording every request (with a copy of its messages) and every abort it saw. */
export function recordingModel(script: ModelScript) {
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
  return { model, aborts, calls };
}

/**
 * A runtime on the recording scripted model, with readable session ids (`label#n`); `problems`
 * are what it reported to its onProblem, each also a process warning as by default.
 */
export function makeRuntime(script: ModelScript, options: { limits?: RunLimitsInput; tools?: RuntimeTool[]; workspace?: string } = {}) {
  const { model, aborts, calls } = recordingModel(script);
  let n = 0;
  const problems: Array<[problem: string, err: unknown]> = [];
  const onProblem: OnProblem = (problem, err) => {
    problems.push([problem, err]);
    warnProcess(problem, err);
  };
  const runtime = new Runtime({ model, limits: options.limits, tools: options.tools, workspace: options.workspace, newId: (label) => `${label}#${++n}`, onProblem });
  return { runtime, aborts, calls, problems };
}

export { reasons, toolResults, userMessages } from './sessionQueries';

export const tick = (ms = 0): Promise<void> => new Promise((r) => setTimeout(r, ms));

export { until } from './until';

export function childByLabel(runtime: Runtime, label: string): Agent {
  const a = runtime.agents.all().find((x) => x.label === label);
  if (!a) throw new Error(`no live agent labelled ${label}`);
  return a;
}

/** A human who answers every prompt (an approval, a question) with `choice`, and the prompts it saw. */
export function approver(choice: string, onAsk?: (p: InteractionPrompt) => void) {
  const prompts: InteractionPrompt[] = [];
  return {
    prompts,
    provider: {
      ask: async (p: InteractionPrompt): Promise<Answer[]> => {
        prompts.push(p);
        onAsk?.(p);
        return [{ id: p.questions[0].id, selected: [choice] }];
      },
    },
  };
}
