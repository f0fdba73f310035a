import * as vscode from 'vscode';
import type { Agent } from '../core/agents';
import type { Runtime } from '../core/runtime';
import type { AgentsTreeProvider } from './agentsTree';
import type { ConversationPanels } from './conversationPanels';

export interface ConversationCommandDeps {
  runtime: Runtime;
  tree: AgentsTreeProvider;
  conversations: ConversationPanels;
}

/**
 * Arbor: Open Conversation. From a tree node it opens that agent's view; from the palette (or
 * with an argument that is not a live agent, such as one from another extension) it asks which
 * live agent with a quick pick.
 */
export function registerConversationCommands({ runtime, tree, conversations }: ConversationCommandDeps): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('arbor.openConversation', async (node?: unknown) => {
      const agent = isLiveAgent(runtime, node) ? node : await pickAgent(runtime, tree);
      if (!agent) return undefined;
      conversations.open(agent);
      return agent.id;
    }),
  ];
}

function isLiveAgent(runtime: Runtime, node: unknown): node is Agent {
  return typeof node === 'object' && node !== null && runtime.agents.isLive(node);
}

async function pickAgent(runtime: Runtime, tree: AgentsTreeProvider): Promise<Agent | undefined> {
  const agents = runtime.agents.all();
  if (agents.length === 0) {
    void vscode.window.showInformationMessage('No agent is live. Start one with Arbor: Run Agent; past sessions are in Arbor History.');
    return undefined;
  }
  const items = agents.map((agent) => ({ label: agent.label, description: tree.pathOf(agent), detail: tree.getTreeItem(agent).description as string, agent }));
  const chosen = await vscode.window.showQuickPick(items, { title: 'Arbor: Open Conversation', placeHolder: 'Choose an agent', matchOnDescription: true });
  return chosen?.agent;
}
