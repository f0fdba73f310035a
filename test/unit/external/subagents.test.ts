import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Agent } from '../../../src/core/agents';
import { startExternalRoot } from '../../../src/core/external';
import { presentAgent } from '../../../src/extension/agents/agentPresentation';
import type { SessionEvent } from '../../../src/core/sessions/types';
import { testAgentConfig } from '../../support/acpTestAgent';
import { approver, makeRuntime, until } from '../../support/runtimeFixture';

const WAIT = 20_000;
const ends = (agent: Agent) => agent.log.events.filter((e): e is Extract<SessionEvent, { type: 'turn_end' }> => e.type === 'turn_end');
const texts = (agent: Agent) => agent.log.events.flatMap((e) => (e.type === 'assistant_text' ? [e.text] : []));

/** An external agent's subagents (subagent_update) as nested nodes under it, each with its own transcript, usage and Stop. */
describe('external agents\' subagents in the tree', function () {
  this.timeout(60_000);
  let workspace: string;
  let runtime: ReturnType<typeof makeRuntime>['runtime'];
  let cancels: string;
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-subagents-'));
    cancels = path.join(workspace, 'cancels.log');
    ({ runtime } = makeRuntime({ version: 1, agents: {} }, { workspace }));
  });
  afterEach(async () => {
    await runtime.dispose();
    fs.rmSync(workspace, { recursive: true, force: true });
  });

  const config = () => testAgentConfig({ env: { ACP_TEST_AGENT_LOG: cancels } });
  const childrenOf = (parent: Agent) => runtime.agents.all().filter((a) => a.log.header.parentSession === parent.id);
  const child = (parent: Agent, label: string) => childrenOf(parent).find((a) => a.label === label);
  const cancelled = () => (fs.existsSync(cancels) ? fs.readFileSync(cancels, 'utf8').trim().split('\n') : []);

  it('each announced subagent is a node under the agent, running, with its own transcript; Stop on one cancels only that one', async () => {
    const parent = startExternalRoot(runtime, { config: config(), prompt: 'subagents: Alpha, Beta' });
    await until(() => child(parent, 'Alpha')?.status === 'running' && child(parent, 'Beta')?.status === 'running', 'both subagents running', WAIT);
    const alpha = child(parent, 'Alpha')!;
    const beta = child(parent, 'Beta')!;
    await until(() => texts(alpha).join('') === 'Alpha is working', 'Alpha\'s own transcript', WAIT);
    assert.ok(!texts(parent).some((t) => t.includes('is working')), 'a subagent\'s stream is not its parent\'s');
    runtime.stop(alpha);
    await until(() => ends(alpha).length === 1, 'Alpha\'s turn end', WAIT);
    assert.strictEqual(ends(alpha)[0].reason, 'aborted');
    assert.deepStrictEqual(alpha.usage, { inputTokens: 7, outputTokens: 3 });
    assert.deepStrictEqual(cancelled(), [`session/cancel ${parentSessionOf(parent)}/Alpha`]);
    assert.strictEqual(beta.status, 'running');
    assert.strictEqual(parent.status, 'running');
    // A person's message cannot reach a subagent the agent runs: it says so, and nothing is sent.
    runtime.sendFromUser(alpha, 'please also check the tests');
    await until(() => ends(alpha).length === 2, 'the message\'s turn', WAIT);
    assert.strictEqual(ends(alpha)[1].reason, 'blocked');
    assert.match(texts(alpha).at(-1) ?? '', /A message cannot reach this subagent: Test Agent gives its subagents their work itself/);
  });

  it('Stop All Below on the agent cancels its whole branch', async () => {
    const parent = startExternalRoot(runtime, { config: config(), prompt: 'subagents: Alpha, Beta' });
    await until(() => childrenOf(parent).filter((a) => a.status === 'running').length === 2, 'both subagents running', WAIT);
    runtime.stopBranch(parent);
    await until(() => ends(parent).length === 1 && childrenOf(parent).every((a) => ends(a).length === 1), 'every turn of the branch to end', WAIT);
    assert.deepStrictEqual([parent, ...childrenOf(parent)].map((a) => ends(a)[0].reason), ['aborted', 'aborted', 'aborted']);
  });

  it('a subagent without cancel has no Stop of its own, and says why', async () => {
    const parent = startExternalRoot(runtime, { config: config(), prompt: 'subagents: Gamma no-cancel' });
    await until(() => child(parent, 'Gamma')?.status === 'running', 'the subagent running', WAIT);
    const gamma = child(parent, 'Gamma')!;
    assert.strictEqual(gamma.engine?.stoppable, false);
    assert.match(gamma.engine?.notice?.detail ?? '', /does not advertise cancel for it/);
  });

  it('a subagent that finishes on its own completes with its usage; its permission request names it', async () => {
    const { prompts, provider } = approver('Allow once');
    runtime.interaction.registerProvider(provider);
    const parent = startExternalRoot(runtime, { config: config(), prompt: 'subagent-asks: Delta\nsay: all done' });
    await until(() => ends(parent).length === 1, 'the parent\'s turn end', WAIT);
    const delta = childrenOf(parent).find((a) => a.label === 'Delta');
    assert.ok(delta, 'the subagent is in the tree');
    await until(() => ends(delta).length === 1, 'its turn end', WAIT);
    assert.strictEqual(ends(delta)[0].reason, 'completed');
    assert.strictEqual(delta.lastTurnEnd?.finalText, 'Delta found it');
    assert.deepStrictEqual(delta.usage, { inputTokens: 5, outputTokens: 2 });
    assert.strictEqual(prompts.length, 1);
    assert.match(prompts[0].detail ?? '', /^Delta \(subagent of Test Agent\): Run echo hi/);
    assert.ok(delta.log.events.some((e) => e.type === 'tool_result' && e.content === 'hi'), 'the call is in the subagent\'s transcript');
  });
});

/** The agent's own id for the parent's protocol session (what its subagents' ids start with). */
function parentSessionOf(agent: Agent): string {
  const opened = agent.log.events.find((e): e is Extract<SessionEvent, { type: 'external_session' }> => e.type === 'external_session');
  return opened?.sessionId ?? '';
}

describe('external agents\' subagents past the run\'s limits', function () {
  this.timeout(60_000);
  it('a subagent the run\'s limits refuse a node is named in the transcript; the agent and its other subagents work on', async () => {
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-limits-'));
    const { runtime } = makeRuntime({ version: 1, agents: {} }, { workspace, limits: { maxLiveChildren: 1 } });
    try {
      const parent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'subagents: Alpha, Beta' });
      await until(() => texts(parent).some((t) => t.includes('"Beta", that Arbor cannot show')), 'the refusal in the transcript', WAIT);
      const shown = runtime.agents.all().filter((a) => a.log.header.parentSession === parent.id).map((a) => a.label);
      assert.deepStrictEqual(shown, ['Alpha']);
      assert.strictEqual(parent.status, 'running');
    } finally {
      await runtime.dispose();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });
});

describe('external agents\' subagents: the node of one without cancel', function () {
  this.timeout(60_000);
  it('offers no Stop (its context value matches no Stop menu) but still End, Send and Open, and its tooltip says why', async () => {
    const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as { contributes: { menus: Record<string, Array<{ command: string; when?: string }>> } };
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-nostop-'));
    const { runtime } = makeRuntime({ version: 1, agents: {} }, { workspace });
    try {
      const parent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'subagents: Gamma no-cancel, Delta' });
      const byLabel = (label: string) => runtime.agents.all().find((a) => a.label === label);
      await until(() => byLabel('Gamma')?.status === 'running' && byLabel('Delta')?.status === 'running', 'the subagents running', WAIT);
      const show = (a: Agent) => presentAgent({ agent: a, waiting: false, treeTokens: 0, descendants: 0, now: Date.now() });
      const gamma = show(byLabel('Gamma')!);
      const delta = show(byLabel('Delta')!);
      const menus = manifest.contributes.menus['view/item/context'];
      const offered = (contextValue: string) =>
        new Set(menus.filter((m) => m.when?.includes('view == arbor.agents') && m.when.match(/viewItem =~ \/(.*)\//) && new RegExp(m.when.match(/viewItem =~ \/(.*)\//)![1]).test(contextValue)).map((m) => m.command));
      assert.ok(!offered(gamma.contextValue).has('arbor.stop'), gamma.contextValue);
      for (const command of ['arbor.endAgent', 'arbor.sendMessage', 'arbor.openConversation']) assert.ok(offered(gamma.contextValue).has(command), command);
      assert.ok(offered(delta.contextValue).has('arbor.stop'), 'one that can be cancelled has its Stop');
      assert.match(gamma.tooltip, /does not advertise cancel for it/);
      assert.match(gamma.description, /no Stop of its own/);
      assert.strictEqual(parent.status, 'running');
    } finally {
      await runtime.dispose();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });
});
