import * as assert from 'assert';
import { formatClock, formatElapsed, formatTokens, pickItemOf, presentAgent, presentLiveAgent } from '../../../src/extension/agents/agentPresentation';
import { renderTranscript } from '../../../src/extension/conversation/transcriptRenderer';
import { childByLabel, makeRuntime, tick } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

describe('agent presentation in the tree', () => {
  const track = disposeAfterEach();
  it('shows running, stopping, parked, waiting and idle states with matching context values', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'kid', prompt: 'x' } }] }, { text: 'started' }]] },
        kid: { turns: [[{ hang: true }], [{ text: 'done' }]] },
      },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 2 && root.status === 'idle', 'child running');
    const kid = childByLabel(runtime, 'kid');
    const show = (waiting = false) => presentAgent({ agent: kid, waiting, treeTokens: 0, descendants: 0, now: Date.now() });
    assert.strictEqual(show().contextValue, 'agent:running:continuable');
    assert.strictEqual(show().icon, 'loading~spin');
    assert.strictEqual(show(true).contextValue, 'agent:waiting:continuable');
    assert.match(show(true).description, /waiting for you/);
    await runtime.subagents.deliver(root, kid.id, 'queued');
    runtime.stop(kid);
    assert.strictEqual(show().state, 'stopping', 'honest: stop requested, turn end not yet recorded');
    assert.match(show().description, /stopping…/);
    await kid.whenIdle();
    assert.strictEqual(show().contextValue, 'agent:parked:continuable');
    assert.match(show().description, /stopped, 1 queued/);
    assert.match(show().tooltip, /parked until you send a message/);
    const rootView = presentAgent({ agent: root, waiting: false, treeTokens: 500, descendants: 1, now: Date.now() });
    assert.strictEqual(rootView.contextValue, 'agent:idle:root');
    assert.match(rootView.description, /tree 500/);
  });

  it('tells one-shot agents apart: no Stop, and the tooltip says who owns them', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'once', prompt: 'x' } }] }]] }, once: { turns: [[{ hang: true }]] } },
    });
    track(runtime);
    runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 2, 'one-shot child');
    const p = presentAgent({ agent: childByLabel(runtime, 'once'), waiting: false, treeTokens: 0, descendants: 0, now: Date.now() });
    assert.strictEqual(p.contextValue, 'agent:running:one-shot');
    assert.match(p.tooltip, /Stop that agent to stop this one/);
  });

  it('a one-shot node says on its row and in its tooltip why it has no Stop, naming its holder', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: { main: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'once', prompt: 'x' } }] }]] }, once: { turns: [[{ hang: true }]] } },
    });
    track(runtime);
    runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 2, 'one-shot child');
    const p = presentAgent({ agent: childByLabel(runtime, 'once'), waiting: false, treeTokens: 0, descendants: 0, now: Date.now(), holder: 'main' });
    assert.match(p.description, /^one-shot for main, no Stop · /);
    assert.match(p.tooltip, /No Stop of its own/);
    assert.match(p.tooltip, /belongs to "main", the agent waiting for its result/);
  });

  it('a row that is not repainted for time shows when its turn started, and its tooltip the elapsed time', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ hang: true }]] } } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => root.status === 'running', 'the turn to run');
    const started = root.turnStartedAt!;
    const later = presentAgent({ agent: root, waiting: false, treeTokens: 0, descendants: 3, now: started + 125_000, time: 'started' });
    // What it does comes first: a model call under way reads "thinking since 14:03:27".
    assert.match(later.description, new RegExp(`thinking since ${formatClock(started)}`));
    assert.match(formatClock(started), /^\d\d:\d\d:\d\d$/);
    assert.match(later.tooltip, /thinking since .* \(2m 5s so far\)/);
    const leaf = presentAgent({ agent: root, waiting: false, treeTokens: 0, descendants: 0, now: started + 125_000 });
    assert.match(leaf.description, /thinking · 2m 5s/, 'rows repainted every second show the elapsed time');
    runtime.stop(root);
  });

  it('a picker names an agent by its path from its top-level ancestor and says what it is doing, as its row does', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'kid', prompt: 'x' } }] }, { hang: true }]] },
        kid: { turns: [[{ hang: true }]] },
      },
    });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => runtime.agents.size === 2, 'the child');
    const kid = childByLabel(runtime, 'kid');
    const item = pickItemOf(kid, runtime.agents, []);
    assert.deepStrictEqual({ label: item.label, description: item.description }, { label: 'kid', description: 'main › kid' });
    assert.strictEqual(item.detail, presentLiveAgent(kid, runtime.agents, []).description);
    assert.match(item.detail, /^continuable · /);
    assert.strictEqual(pickItemOf(root, runtime.agents, []).description, 'main');
    runtime.stop(kid);
    runtime.stop(root);
  });

  it('formats elapsed time and token counts compactly', () => {
    assert.strictEqual(formatElapsed(4_200), '4s');
    assert.strictEqual(formatElapsed(125_000), '2m 5s');
    assert.strictEqual(formatElapsed(3_725_000), '1h 2m');
    assert.strictEqual(formatTokens(950), '950');
    assert.strictEqual(formatTokens(1_250), '1.3k');
    assert.strictEqual(formatTokens(2_500_000), '2.5M');
  });
});

describe('transcript rendering', () => {
  const track = disposeAfterEach();
  it('renders messages, tool calls with arguments and results, questions, answers and turn ends', async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        main: {
          turns: [
            [
              { text: 'thinking', toolCalls: [{ name: 'ask_user_question', arguments: { questions: [{ id: 'q', question: 'Tea or coffee?', options: [{ label: 'Tea' }, { label: 'Coffee' }] }] } }] },
              { text: 'Coffee it is.' },
            ],
          ],
        },
      },
    });
    track(runtime);
    runtime.interaction.registerProvider({ ask: async () => [{ id: 'q', selected: ['Coffee'] }] });
    const root = runtime.startRoot({ prompt: 'Make a drink', label: 'main' });
    await root.whenIdle();
    await tick(1);
    const md = renderTranscript(root.log.header, root.log.events, { status: root.status });
    assert.match(md, /^# main/);
    assert.match(md, /\*\*You:\*\*\n\n> Make a drink/);
    assert.match(md, /Tool call\*\* `ask_user_question`/);
    assert.match(md, /"question": "Tea or coffee\?"/, 'arguments pretty-printed');
    assert.match(md, /Question for you:\*\*\n\n- Tea or coffee\? \(Tea \/ Coffee\)/);
    assert.match(md, /Your answer:\*\*\n\n- q: Coffee/);
    assert.match(md, /Coffee it is\./);
    assert.match(md, /_Turn 1 ended: completed\._/);
    assert.match(renderTranscript(root.log.header, root.log.events, undefined), /no longer live/);
  });
});
