import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { Agent } from '../../src/core/agents/agent';
import type { ArborTesting } from '../../src/extension/extension';
import type { SessionNode } from '../../src/extension/history/historyNodes';
import { arborTesting, toolResults, waitFor } from './support';
import { ui } from './ui';
import { windowReload } from './windowReload';

// A question open when the window reloads: History marks the session "waiting for you", the
// restored agent asks it again as quick picks (no Resume needed), and the agent goes on with the answer (or a clear cancellation).
// This suite runs after the others of its phase (index.ts): its questions stay on screen until
// the reload, where they would stand in front of another suite's prompts.

const SUITE = path.basename(__filename);
const STATE_KEY = 'pendingQuestion';

interface BeforeReload {
  answererId: string;
  declinerId: string;
}

const asking = (label: string, question: string) => ({
  version: 1,
  agents: {
    [label]: {
      turns: [
        [
          {
            toolCalls: [{ name: 'ask_user_question', arguments: { questions: [{ id: 'pick', question, options: [{ label: 'Red' }, { label: 'Blue' }] }] } }],
          },
          { text: 'not reached before the reload' },
        ],
      ],
    },
  },
});

async function sessionNode(t: ArborTesting, id: string): Promise<SessionNode> {
  t.history.refresh();
  const node = (await t.history.sessions()).find((n) => n.entry.header.id === id);
  assert.ok(node, `History does not list session ${id}`);
  return node;
}

const HEADER_DONE = { text: 'Thanks: the header will be the colour you picked.' };
const THEME_DONE = { text: 'No answer, so I keep the current theme and list it as an open decision.' };

const pendingFor = (t: ArborTesting, agent: Agent | undefined): boolean => agent !== undefined && t.runtime.interaction.pending().some((p) => p.agent?.id === agent.id);

if (windowReload.phase() === 'before') {
  describe('a question open at a window reload', function () {
    this.timeout(60_000);

    it('before the reload: two interactive roots each have a question open, and the reload is asked for', async function () {
      if (!windowReload.available) {
        if (this.test) Reflect.set(this.test, Symbol.for('arbor.test.skipReason'), windowReload.unavailableReason);
        this.skip();
      }
      const t = await arborTesting();
      const answerer = t.startScripted(asking('Colour asker', 'Which colour for the header?'), 'Pick a header colour with me.', 'Colour asker');
      const decliner = t.startScripted(asking('Theme asker', 'Which colour for the theme?'), 'Pick a theme colour with me.', 'Theme asker');
      await waitFor(() => pendingFor(t, answerer) && pendingFor(t, decliner), 'both questions to be open');
      // Nothing is answered: the reload closes the window with both open.
      windowReload.request(SUITE, STATE_KEY, { answererId: answerer.id, declinerId: decliner.id } satisfies BeforeReload);
    });
  });
} else {
  describe('a question open at a window reload, after the reload', function () {
    this.timeout(120_000);
    let t: ArborTesting;
    let recorded: BeforeReload;
    const scriptFile = 'pending-question-script.json';

    before(async () => {
      t = await arborTesting();
      recorded = windowReload.state<BeforeReload>(STATE_KEY)!;
      assert.ok(recorded, 'the first phase left no state');
      // The resumed agents run on the workspace's scripted model: their turn 1 was the one the
      // reload cut short; turn 2 asks again (no model call) and then takes this step.
      const script = {
        version: 1,
        agents: {
          // The same text at either step: the call asked again may count as the turn's first step or not.
          'Colour asker': { turns: [[{ text: '(the turn before the reload)' }], [HEADER_DONE, HEADER_DONE]] },
          'Theme asker': { turns: [[{ text: '(the turn before the reload)' }], [THEME_DONE, THEME_DONE]] },
        },
      };
      const folder = vscode.workspace.workspaceFolders![0].uri.fsPath;
      fs.writeFileSync(path.join(folder, scriptFile), JSON.stringify(script));
      const config = vscode.workspace.getConfiguration('arbor');
      await config.update('scriptedModel.scriptFile', scriptFile, vscode.ConfigurationTarget.Workspace);
      await config.update('model.provider', 'scripted', vscode.ConfigurationTarget.Workspace);
      await waitFor(() => t.model.provider.id === 'scripted' && vscode.workspace.getConfiguration('arbor').get('scriptedModel.scriptFile') === scriptFile, 'the scripted model to play the script file');
    });
    after(async () => {
      const config = vscode.workspace.getConfiguration('arbor');
      await config.update('model.provider', undefined, vscode.ConfigurationTarget.Workspace);
      await config.update('scriptedModel.scriptFile', undefined, vscode.ConfigurationTarget.Workspace);
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      // Only its own agents: the reload put back other suites' roots too, which they check next.
      for (const id of [recorded?.answererId, recorded?.declinerId]) {
        const agent = id === undefined ? undefined : t?.runtime.agents.get(id);
        if (agent) await t.runtime.end(agent);
      }
    });

    it('both askers are back by themselves, each with its question asked again, and History still lists both sessions', async function () {
      await t.restored;
      for (const id of [recorded.answererId, recorded.declinerId]) {
        await waitFor(() => pendingFor(t, t.runtime.agents.get(id)), `the question of ${id} to be asked again`);
        await sessionNode(t, id);
      }
    });

    it('the restored agent asks the question again as a quick pick, with no Resume, and the answer reaches it, whose next step goes on with it', async function () {
      ui.requireBrowser(this);
      await t.restored;
      const id = recorded.answererId;
      const agent = t.runtime.agents.get(id)!;
      assert.ok(agent, 'the asker is back by itself');
      await waitFor(() => pendingFor(t, agent), 'the question to be asked again');
      // The quick pick's title names the asker; the question is its placeholder.
      assert.ok(await ui.pageHasText('Colour asker asks'), 'the question is on screen again');
      assert.deepStrictEqual(t.runtime.interaction.pending().find((p) => p.agent?.id === id)?.questions.map((q) => q.question), ['Which colour for the header?']);
      await ui.typeText('Blue');
      await ui.pressKeys('Enter');
      await waitFor(() => agent.lastTurnEnd?.reason === 'completed', 'the resumed turn to finish');
      const result = toolResults(agent).at(-1)!;
      assert.match(result.content, /Blue/, `the tool call gets the answer: ${result.content}`);
      const texts = agent.conversation.map((m) => `${m.role}:${m.content}`);
      const answered = texts.findIndex((m) => m.startsWith('tool:') && m.includes('Blue'));
      assert.ok(answered >= 0 && texts.slice(answered + 1).some((m) => m === `assistant:${HEADER_DONE.text}`), `the next step follows the answer: ${texts.join(' | ')}`);
      t.history.refresh();
      assert.strictEqual((await sessionNode(t, id)).entry.summary.waitingForYou, undefined, 'no longer waiting');
    });

    it('declining the question asked again gives the agent a clear cancellation, and it goes on', async function () {
      ui.requireBrowser(this);
      await t.restored;
      const agent = t.runtime.agents.get(recorded.declinerId)!;
      assert.ok(agent, 'the asker is back by itself');
      await waitFor(() => pendingFor(t, agent), 'the question to be asked again');
      assert.ok(await ui.pageHasText('Theme asker asks'), 'the question is on screen again');
      await ui.pressKeys('Escape');
      await waitFor(() => agent.lastTurnEnd?.reason === 'completed', 'the resumed turn to finish');
      const result = toolResults(agent).at(-1)!;
      assert.match(result.content, /ASK_CANCELLED/, `the tool call says the human declined: ${result.content}`);
      assert.strictEqual(agent.conversation.at(-1)?.content, THEME_DONE.text);
    });
  });
}
