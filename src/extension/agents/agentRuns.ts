// Starting root agents from the editor: the extension is the internal caller here, so the
// interaction mode comes from which command the human chose, never from the request.
import type * as vscode from 'vscode';
import type { RunLimitsInput, Runtime } from '../../core';
import type { Agent, RunWorkspace } from '../../core/agents';
import type { AgentDefinition } from '../../core/definitions';
import type { PublicRunRequest } from '../../core/interaction';
import { scriptedModelPart, type ModelProvider } from '../../core/models';
import { demoPart } from '../parts';

/** How a run started from the editor involves the human (the mode names of the run policy). */
export type RunMode = 'interactive' | 'autonomous' | 'scheduled';

export interface AgentRuns {
  start(request: PublicRunRequest, mode: RunMode, model?: ModelProvider, limits?: RunLimitsInput, workspace?: RunWorkspace, definition?: AgentDefinition): Agent;
  /** The demo always plays on the scripted model, whatever the model setting. */
  startDemo(): Agent;
  /** A root on a scripted model the caller brings (its script is parsed like a script file). */
  startScripted(script: unknown, request: PublicRunRequest, mode: RunMode, limits?: RunLimitsInput): Agent;
}

/** `beforeStart` runs before every root starts (the bridge offers tools registered since the last run). */
export function createAgentRuns(runtime: Runtime, log: vscode.LogOutputChannel, beforeStart: () => void = () => undefined): AgentRuns {
  const start = (request: PublicRunRequest, mode: RunMode, model?: ModelProvider, limits?: RunLimitsInput, workspace?: RunWorkspace, definition?: AgentDefinition): Agent => {
    beforeStart();
    const agent = runtime.startRoot({
      prompt: request.prompt,
      label: request.label,
      limits,
      context: mode === 'interactive' ? undefined : { interactionMode: mode },
      model,
      workspace,
      definition,
    });
    log.info(`Started ${mode} agent "${agent.label}" (${agent.id})${definition ? ` as the definition ${definition.name} (${definition.file})` : ''}`);
    return agent;
  };
  return {
    start,
    startDemo: () => {
      const demo = demoPart();
      return start(
        { prompt: 'Plan the weekly shopping: compare prices, keep an eye on the build, and summarise the list.', label: demo.DEMO_ROOT_LABEL },
        'interactive',
        new (scriptedModelPart().ScriptedModel)(demo.demoScript),
        demo.DEMO_LIMITS,
      );
    },
    startScripted: (script, request, mode, limits) => start(request, mode, new (scriptedModelPart().ScriptedModel)(script), limits),
  };
}
