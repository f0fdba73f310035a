import * as assert from 'assert';
import * as z from 'zod';
import type { Agent } from '../../../src/core/agents/agent';
import { conversationState, describeDoing, type ConversationStateInput } from '../../../src/core/conversation';
import { defineTool, type RuntimeTool } from '../../../src/core/tools';
import { doingOf, presentAgent } from '../../../src/extension/agents/agentPresentation';
import { childByLabel, makeRuntime } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

const call = (name: string, args: unknown) => ({ id: `c-${name}`, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
const tools = (...calls: ReturnType<typeof call>[]) => ({ kind: 'tools' as const, calls });

describe('what each agent is doing (describeDoing)', () => {
  it('says what the current tool call does, in words', () => {
    assert.strictEqual(describeDoing({ activity: { kind: 'thinking' } }), 'thinking');
    assert.strictEqual(describeDoing({ activity: tools(call('run_command', { command: 'npm test' })) }), 'running: npm test');
    assert.strictEqual(describeDoing({ activity: tools(call('read_file', { path: 'src/a.ts' })) }), 'reading src/a.ts');
    assert.strictEqual(describeDoing({ activity: tools(call('edit_file', { path: 'src/a.ts', old_text: 'a', new_text: 'b' })) }), 'editing src/a.ts');
    assert.strictEqual(describeDoing({ activity: tools(call('create_file', { path: 'src/b.ts', content: '' })) }), 'editing src/b.ts');
    assert.strictEqual(describeDoing({ activity: tools(call('search_text', { query: 'no price' })) }), 'searching for "no price"');
    assert.strictEqual(describeDoing({ activity: tools(call('mcp_github_create_issue', {})) }), 'using mcp_github_create_issue');
    assert.strictEqual(describeDoing({ activity: tools(call('wait', { seconds: 1.5 })) }), 'waiting 1.5 s');
    assert.strictEqual(
      describeDoing({ activity: tools(call('read_file', { path: 'a.ts' }), call('read_file', { path: 'b.ts' }), call('list_files', {})) }),
      'reading a.ts (+2 more)',
    );
  });

  it('never trusts the arguments the model wrote: malformed or odd ones fall back to the tool alone', () => {
    assert.strictEqual(describeDoing({ activity: tools(call('run_command', '{not json')) }), 'running a command');
    assert.strictEqual(describeDoing({ activity: tools(call('read_file', { path: 42 })) }), 'reading a file');
    assert.strictEqual(describeDoing({ activity: tools(call('wait', { seconds: 'soon' })) }), 'waiting');
    const long = describeDoing({ activity: tools(call('run_command', { command: `echo ${'x'.repeat(200)}\nrm -rf /` })) })!;
    assert.ok(long.length < 70 && long.endsWith('…') && !long.includes('\n'), `cut to one short line: ${long}`);
  });

  it('names the prompt it waits on and the subagents it waits for', () => {
    assert.strictEqual(describeDoing({ activity: tools(call('run_command', { command: 'npm test' })), waitingFor: 'approval' }), 'waiting for your approval');
    assert.strictEqual(describeDoing({ activity: tools(call('ask_user_question', {})), waitingFor: 'answer' }), 'waiting for you');
    assert.strictEqual(describeDoing({ activity: tools(call('delegate_task', { label: 'Summarizer', prompt: 'x' })), waitingOn: ['Summarizer'] }), 'waiting for Summarizer');
    assert.strictEqual(describeDoing({ activity: { kind: 'idle' }, waitingOn: ['Researcher'] }), 'waiting for Researcher');
    assert.strictEqual(describeDoing({ activity: { kind: 'idle' }, waitingOn: ['Researcher', 'Watcher'] }), 'waiting for Researcher and Watcher');
    assert.strictEqual(describeDoing({ activity: { kind: 'idle' }, waitingOn: ['A', 'B', 'C'] }), 'waiting for A and 2 more');
    assert.strictEqual(describeDoing({ activity: { kind: 'idle' } }), undefined);
  });
});

describe('what each agent is doing, on its node and in its conversation view', () => {
  const track = disposeAfterEach();
  const live = async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const slow = defineTool({
      name: 'slow_lookup',
      description: 'waits',
      schema: () => z.object({}),
      async run() {
        await gate;
        return { content: 'ok' };
      },
    }) as RuntimeTool;
    const fx = makeRuntime(
      {
        version: 1,
        agents: {
          lead: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'Researcher', prompt: 'x' } }] }, { text: 'started' }]] },
          Researcher: { turns: [[{ toolCalls: [{ name: 'delegate_task', arguments: { label: 'Summarizer', prompt: 'x' } }] }, { text: 'r' }]] },
          Summarizer: { turns: [[{ toolCalls: [{ name: 'slow_lookup', arguments: {} }] }, { hang: true }]] },
        },
      },
      { tools: [slow] },
    );
    const lead = fx.runtime.startRoot({ prompt: 'go', label: 'lead' });
    await whenState(fx.runtime, () => fx.runtime.agents.all().some((a) => a.label === 'Summarizer') && lead.status === 'idle', 'the branch to form');
    return { ...fx, lead, open };
  };
  const rowOf = (runtime: { agents: Parameters<typeof doingOf>[1] }, agent: Agent, pending: Parameters<typeof doingOf>[2] = []) => {
    const d = doingOf(agent, runtime.agents, pending);
    return presentAgent({ agent, waiting: d.waitingFor !== undefined, treeTokens: 0, descendants: 0, now: Date.now(), waitingFor: d.waitingFor, waitingOn: d.waitingOn }).description;
  };
  const viewText = (runtime: { agents: Parameters<typeof doingOf>[1] }, agent: Agent, pending: Parameters<typeof doingOf>[2] = []) => {
    const input: ConversationStateInput = {
      kind: agent.kind,
      live: true,
      status: agent.status,
      stopping: agent.stopping !== undefined,
      waiting: pending.some((p) => p.agent?.id === agent.id),
      pendingCount: agent.pendingCount,
      parked: agent.isParked,
      parentOffline: false,
      doing: describeDoing(doingOf(agent, runtime.agents, pending)),
      held: agent.isHeld,
      queued: [],
      tokens: 0,
    };
    return conversationState(input).text;
  };

  it('a parent waiting on a child, a tool in flight, thinking, an approval: the same words in the tree and the view', async () => {
    const { runtime, lead, open } = await live();
    track(runtime);
    const researcher = childByLabel(runtime, 'Researcher');
    const summarizer = childByLabel(runtime, 'Summarizer');
    await whenState(runtime, () => summarizer.conversation.some((m) => m.role === 'assistant'), 'the Summarizer to call its tool');
    assert.match(rowOf(runtime, summarizer), /^one-shot, no Stop · using slow_lookup · \d+s · /);
    assert.strictEqual(viewText(runtime, summarizer), 'using slow_lookup');
    assert.match(rowOf(runtime, researcher), /^continuable · waiting for Summarizer · \d+s · /);
    assert.strictEqual(viewText(runtime, researcher), 'waiting for Summarizer');
    assert.match(rowOf(runtime, lead), /^root · waiting for Researcher · /, 'an idle parent says which running child it waits for');
    assert.strictEqual(viewText(runtime, lead), 'waiting for Researcher');
    const approval = [{ agent: { id: researcher.id }, intent: 'approval' }];
    assert.match(rowOf(runtime, researcher, approval), /waiting for your approval/);
    assert.strictEqual(viewText(runtime, researcher, approval), 'waiting for your approval');
    open();
    await whenState(runtime, () => summarizer.conversation.some((m) => m.role === 'tool'), 'the tool result');
    assert.match(rowOf(runtime, summarizer), /· thinking · /, 'back to its model once the tool returned');
    assert.strictEqual(viewText(runtime, summarizer), 'thinking');
  });

  it('a stopped branch says "stopped", and "stopped, 2 queued" where messages wait', async () => {
    const { runtime, lead } = await live();
    track(runtime);
    const researcher = childByLabel(runtime, 'Researcher');
    runtime.stopBranch(lead);
    assert.match(rowOf(runtime, lead), /^root · stopped · /, 'an idle agent stopped with its branch says so, though no turn of its own was aborted');
    assert.strictEqual(viewText(runtime, lead), 'stopped');
    await researcher.whenIdle();
    await whenState(runtime, () => lead.pendingCount === 1, "the Researcher's report to wait in the lead's queue");
    lead.send('and this', { from: 'user', wake: false });
    assert.match(rowOf(runtime, lead), /^root · stopped, 2 queued · /);
    assert.strictEqual(viewText(runtime, lead), 'stopped with 2 queued');
    assert.match(rowOf(runtime, researcher), /^continuable · stopped · /);
  });
});
