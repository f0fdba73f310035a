// The commands on live agents: run, run unattended, demo, stop, stop a branch, stop all, send,
// end, answer, open transcript, clear ended subagents.
import * as vscode from 'vscode';
import { ArborError, type RunLimitsInput, type Runtime } from '../../core';
import type { Agent } from '../../core/agents';
import { parsePublicRunRequestFrom, type PublicRunRequest } from '../../core/interaction';
import { parseAgentArgument, parseClearEndedArgument, parseRunStartOptions } from '../commandArguments';
import type { TranscriptProvider } from '../conversation/transcripts';
import { parsedArgument, reportError } from '../errorReporting';
import type { AgentDefinition } from '../../core/definitions';
import { definitionsPart } from '../parts';
import { pickItemOf } from './agentPresentation';
import type { AgentsTreeProvider } from './agentsTree';

export interface AgentCommandDeps {
  runtime: Runtime;
  tree: AgentsTreeProvider;
  transcripts: TranscriptProvider;
  log: vscode.LogOutputChannel;
  /** `limits`: this run's own limits over the `arbor.limits` setting. */
  startRun(request: PublicRunRequest, mode: 'interactive' | 'autonomous', limits?: RunLimitsInput, definition?: AgentDefinition): Agent;
  /** The demo always plays on the scripted model, whatever the model setting. */
  startDemo(): Agent;
  /** Reads the agent definition files as they are now (a run a person starts offers what is on disk, watched or not). */
  readDefinitions?: () => Promise<void>;
}

export function registerAgentCommands(deps: AgentCommandDeps): vscode.Disposable[] {
  const { runtime, tree, transcripts, log } = deps;

  const pickAgent = async (title: string, filter: (a: Agent) => boolean, empty: string): Promise<Agent | undefined> => {
    const agents = runtime.agents.all().filter(filter);
    if (agents.length === 0) {
      void vscode.window.showInformationMessage(empty);
      return undefined;
    }
    // Described as the view would show them, without reading the view: only the view's host may
    // ask the tree for its rows (asking is how the tree learns a repaint arrived).
    const pending = runtime.interaction.pending();
    const items = agents.map((agent) => ({ ...pickItemOf(agent, runtime.agents, pending), agent }));
    const chosen = await vscode.window.showQuickPick(items, { title, placeHolder: 'Choose an agent', matchOnDescription: true });
    return chosen?.agent;
  };

  /** The agent a command's argument names (parsed: a bad one rejects the command), if any. */
  const agentArgument = (title: string, arg: unknown): Agent | undefined => parsedArgument(log, () => parseAgentArgument(runtime, title, arg));

  /** The node a tree action was invoked on, or (from the palette) the agent the user picks. */
  const nodeOrPick = (arg: unknown, title: string, filter: (a: Agent) => boolean, empty: string): Promise<Agent | undefined> => {
    const node = agentArgument(title, arg);
    return node && runtime.agents.isLive(node) ? Promise.resolve(node) : pickAgent(title, filter, empty);
  };

  const stop = (agent: Agent): void => {
    try {
      runtime.stop(agent);
      log.info(`Stop requested for "${agent.label}" (${agent.id})`);
    } catch (err) {
      reportError(log, `Could not stop "${agent.label}"`, err);
    }
  };

  /** Stops the node's agent, or (from the palette, or with no node) the running agent the user picks. */
  const stopNodeOrPick = async (node: unknown): Promise<string | undefined> => {
    const agent = await nodeOrPick(node, 'Arbor: Stop Agent', (a) => a.status === 'running' && a.kind !== 'one-shot', 'No agent is running a turn that can be stopped.');
    if (agent) stop(agent);
    return agent?.id;
  };

  /**
   * Stop All Below: the node's agent and every live agent below it, or (from the palette) the
   * agent the user picks. Returns the ids of the agents stopped.
   */
  const stopBranchOfNodeOrPick = async (node: unknown): Promise<string[] | undefined> => {
    const agent = await nodeOrPick(node, 'Arbor: Stop All Below', () => true, 'No agent is live. Start one with Arbor: Run Agent.');
    if (!agent) return undefined;
    try {
      const result = runtime.stopBranch(agent);
      log.info(`Stop All Below requested for "${agent.label}" (${agent.id}): ${result.agentIds.length} agent(s) stopped, ${result.interrupted.length} turn(s) interrupted`);
      return result.agentIds;
    } catch (err) {
      reportError(log, `Could not stop the agents below "${agent.label}"`, err);
      return undefined;
    }
  };

  const stopAll = (): string[] => {
    const result = runtime.stopAll();
    if (result.agentIds.length === 0) void vscode.window.showInformationMessage('No agent is live.');
    else log.info(`Stop All requested: ${result.agentIds.length} agent(s) stopped, ${result.interrupted.length} turn(s) interrupted`);
    return result.agentIds;
  };

  const askPrompt = async (title: string, request?: unknown, question = 'What should the agent do?'): Promise<PublicRunRequest | undefined> => {
    if (request !== undefined) return parsePublicRunRequestFrom('command', request);
    const prompt = await vscode.window.showInputBox({
      title,
      prompt: question,
      placeHolder: 'e.g. Find the cheapest items in data/prices.csv',
      ignoreFocusOut: true,
      validateInput: (v) => (v.trim() ? undefined : 'Describe the task for the agent.'),
    });
    return prompt === undefined ? undefined : { prompt };
  };

  /**
   * Start a root on a typed task (or on a request from another extension, parsed strictly), with
   * the run's own limits when `options` gives them: bad options start nothing and ask nothing.
   */
  const runFromPrompt = async (title: string, mode: 'interactive' | 'autonomous', request?: unknown, options?: unknown): Promise<string | undefined> => {
    try {
      const limits = parseRunStartOptions(title, options);
      // Asked only of a person at the palette: a request from another extension names no definition.
      if (request === undefined) await deps.readDefinitions?.();
      const definition = request === undefined && runtime.definitions.list().length > 0 ? await definitionsPart().pickDefinition(runtime, title) : null;
      if (definition === undefined) return undefined;
      const parsed = await askPrompt(
        title,
        request,
        mode === 'autonomous'
          ? 'What should the agent do? It will not ask you anything: it makes small reversible assumptions and lists them, or reports what blocks it.'
          : undefined,
      );
      if (!parsed) return undefined;
      const agent = deps.startRun(parsed, mode, limits, definition ?? undefined);
      void vscode.commands.executeCommand('arbor.agents.focus');
      return agent.id;
    } catch (err) {
      reportError(log, 'Could not start the agent', err);
      return undefined;
    }
  };

  return [
    // Other extensions and keybindings may pass the task and, second, `{ limits }` for this run.
    vscode.commands.registerCommand('arbor.runAgent', (request?: unknown, options?: unknown) => runFromPrompt('Arbor: Run Agent', 'interactive', request, options)),
    vscode.commands.registerCommand('arbor.runAgentUnattended', (...args: unknown[]) => {
      // Unattended runs never wait for a human. Only a person at the input box starts one:
      // arguments from other extensions cannot choose the interaction mode.
      if (args.length > 0 && args[0] !== undefined) {
        reportError(log, 'Start Unattended Run takes no arguments', new ArborError('INPUT_INVALID', 'Run it from the Command Palette and type the task.'));
        return undefined;
      }
      return runFromPrompt('Arbor: Start Unattended Run (never asks you anything)', 'autonomous');
    }),
    vscode.commands.registerCommand('arbor.runDemo', () => {
      const agent = deps.startDemo();
      void vscode.commands.executeCommand('arbor.agents.focus');
      return agent.id;
    }),
    vscode.commands.registerCommand('arbor.stopAgent', (node?: unknown) => stopNodeOrPick(node)),
    // The tree's inline Stop: the node says which agent, so nothing is asked. VS Code can hand
    // the action no node while it re-reads the tree; then ask which agent rather than drop it.
    vscode.commands.registerCommand('arbor.stop', (node?: unknown) => stopNodeOrPick(node)),
    // The tree's Stop All Below (inline and context menu), and the palette's, which asks which agent.
    vscode.commands.registerCommand('arbor.stopBranch', (node?: unknown) => stopBranchOfNodeOrPick(node)),
    vscode.commands.registerCommand('arbor.stopAll', (...args: unknown[]) => {
      if (args.length > 0 && args[0] !== undefined) {
        reportError(log, 'Stop All takes no arguments', new ArborError('INPUT_INVALID', 'Stop All stops every live agent; it names none.'));
        return undefined;
      }
      return stopAll();
    }),
    vscode.commands.registerCommand('arbor.sendMessage', async (node?: unknown) => {
      const agent = await nodeOrPick(node, 'Arbor: Send Message to Agent', (a) => a.kind !== 'one-shot', 'No agent can take a message right now. Start one with Arbor: Run Agent.');
      if (!agent) return undefined;
      const text = await vscode.window.showInputBox({
        title: `Message to ${agent.label}`,
        prompt: agent.isParked ? 'It is stopped with queued messages: your message resumes them, in order, after them.' : 'It starts a turn when the agent is idle, or waits in its queue.',
        ignoreFocusOut: true,
        validateInput: (v) => (v.trim() ? undefined : 'Type a message.'),
      });
      if (text === undefined) return undefined;
      try {
        runtime.sendFromUser(agent, text);
        return agent.id;
      } catch (err) {
        reportError(log, `Could not send the message to "${agent.label}"`, err);
        return undefined;
      }
    }),
    vscode.commands.registerCommand('arbor.endAgent', async (node?: unknown) => {
      const agent = await nodeOrPick(node, 'Arbor: End Agent', (a) => a.kind !== 'one-shot', 'No agent can be ended right now.');
      if (!agent) return undefined;
      try {
        await runtime.end(agent);
        log.info(`Ended "${agent.label}" (${agent.id}); its session stays in the history`);
        return agent.id;
      } catch (err) {
        reportError(log, `Could not end "${agent.label}"`, err);
        return undefined;
      }
    }),
    vscode.commands.registerCommand('arbor.openTranscript', async (node?: unknown) => {
      const agent = agentArgument('Arbor: Open Transcript', node) ?? (await pickAgent('Arbor: Open Transcript', () => true, 'No agent is live. Past sessions are in Arbor History.'));
      if (agent) await transcripts.show(agent);
    }),
    // From the view's title: every ended subagent; from an ended row: that row's ended siblings
    // too; from an agent: its ended subagents. Returns how many rows went.
    vscode.commands.registerCommand('arbor.clearEndedSubagents', (node?: unknown) => {
      const target = parsedArgument(log, () => parseClearEndedArgument(runtime, node));
      if (target.kind === 'all') return tree.ended.clear();
      const parent = target.kind === 'agent' ? target.agent : tree.ended.parentOfId(target.id);
      return parent ? tree.ended.clear(parent) : 0;
    }),
    vscode.commands.registerCommand('arbor.showLog', () => log.show()),
  ];
}
