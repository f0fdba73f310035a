import * as vscode from 'vscode';
import type { Agent } from '../../core/agents';
import type { Runtime } from '../../core';
import { pickItemOf } from '../agents/agentPresentation';
import { parseAgentArgument } from '../commandArguments';
import { parsedArgument } from '../errorReporting';
import type { ConversationPanels } from './conversationPanels';

export interface ConversationCommandDeps {
  runtime: Runtime;
  conversations: ConversationPanels;
  log: vscode.LogOutputChannel;
}

/**
 * Arbor: Open Conversation. From a tree node (or a live agent's id) it opens that agent's view;
 * from the palette, or for a node whose agent has just ended, it asks which live agent with a
 * quick pick. Any other argument is refused (INPUT_INVALID).
 */
export function registerConversationCommands({ runtime, conversations, log }: ConversationCommandDeps): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('arbor.openConversation', async (node?: unknown) => {
      const given = parsedArgument(log, () => parseAgentArgument(runtime, 'Arbor: Open Conversation', node));
      const agent = given && runtime.agents.isLive(given) ? given : await pickAgent(runtime);
      if (!agent) return undefined;
      conversations.open(agent);
      return agent.id;
    }),
  ];
}

async function pickAgent(runtime: Runtime): Promise<Agent | undefined> {
  const agents = runtime.agents.all();
  if (agents.length === 0) {
    void vscode.window.showInformationMessage('No agent is live. Start one with Arbor: Run Agent; past sessions are in Arbor History.');
    return undefined;
  }
  const pending = runtime.interaction.pending();
  const items = agents.map((agent) => ({ ...pickItemOf(agent, runtime.agents, pending), agent }));
  const chosen = await vscode.window.showQuickPick(items, { title: 'Arbor: Open Conversation', placeHolder: 'Choose an agent', matchOnDescription: true });
  return chosen?.agent;
}
