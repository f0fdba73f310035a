import assert from 'node:assert/strict';
import type { TurnEnd } from '../../../src/core/agents/agent';
import { buildConversation, hostToWebviewSchema } from '../../../src/core/conversation';
import type { SessionEvent } from '../../../src/core/sessions/types';
import { formatReport, readReport, reportOf, reportTitle } from '../../../src/core/subagents';
import { makeRuntime, userMessages } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

const end = (reason: TurnEnd['reason'], extra: Partial<TurnEnd> = {}): TurnEnd => ({ turn: 1, reason, finalText: '', ...extra });

describe("subagent reports: the model's text and a person's line", () => {
  const track = disposeAfterEach();
  const cases: Array<[string, TurnEnd | undefined, boolean, string]> = [
    ['completed', end('completed', { finalText: 'There are 3 apples.' }), false, 'Researcher finished its turn'],
    ['completed and released', end('completed', { finalText: 'Done.' }), true, 'Researcher finished its turn and is idle'],
    ['stopped by the user', end('aborted', { cause: 'user' }), false, 'Researcher was stopped by you'],
    ['interrupted by an ancestor', end('aborted', { cause: 'parent' }), false, 'Researcher was interrupted'],
    ['out of budget', end('budget', { message: 'the run allows at most 3 turns per agent' }), false, 'Researcher hit a run limit'],
    ['failed', end('error', { message: 'MODEL_TIMEOUT: no answer' }), false, 'Researcher failed'],
    ["its own subagents finished", undefined, true, "Researcher's subagents have finished and is idle"],
  ];
  for (const [what, turnEnd, released, title] of cases) {
    it(`${what}: the person reads "${title}", and the model's text still names the agent_id`, () => {
      const report = reportOf('Researcher', 'researcher-7', turnEnd, released);
      const text = formatReport(report);
      assert.match(text, /agent_id: researcher-7/);
      const read = readReport(text);
      assert.deepEqual(read, { label: 'Researcher', agentId: 'researcher-7', outcome: report.outcome, released });
      assert.equal(reportTitle(read), title);
      if (turnEnd?.finalText) assert.ok(text.includes(turnEnd.finalText));
    });
  }

  it('reads labels with quotes and parentheses, and ignores texts that only look like reports', () => {
    const text = formatReport(reportOf('The "fast" (one)', 'x-1', end('completed'), false));
    assert.equal(readReport(text)?.label, 'The "fast" (one)');
    assert.equal(readReport('[Report from subagent "A"] It finished its turn.'), undefined);
    assert.equal(readReport('please summarise the report'), undefined);
  });

  it('the conversation view shows a report as one line with the full text folded, and other messages as they are', () => {
    const at = '2026-01-01T00:00:00.000Z';
    const report = formatReport(reportOf('Watcher', 'watcher-2', end('aborted', { cause: 'user' }), true));
    const events: SessionEvent[] = [
      { type: 'turn_start', at, turn: 1 },
      { type: 'user_message', at, text: report, from: 'child' },
      { type: 'user_message', at, text: 'a plain note from a child', from: 'child' },
      { type: 'user_message', at, text: report, from: 'user' },
    ];
    const items = buildConversation(events);
    assert.deepEqual(items.slice(1), [
      { kind: 'report', title: 'Watcher was stopped by you and is idle', text: report },
      { kind: 'message', from: 'child', text: 'a plain note from a child' },
      { kind: 'message', from: 'user', text: report },
    ]);
    assert.ok(hostToWebviewSchema().safeParse({ type: 'items', start: 0, items }).success, 'report items fit the wire');
  });

  it("a real continuable child's report reaches the parent's model in full and reads as one line", async () => {
    const { runtime } = makeRuntime({
      version: 1,
      agents: {
        Lead: { turns: [[{ toolCalls: [{ name: 'start_subagent', arguments: { label: 'Kid', prompt: 'count' } }] }, { text: 'waiting' }], [{ text: 'thanks' }]] },
        Kid: { turns: [[{ text: 'There are 3 apples.' }]] },
      },
    });
    track(runtime);
    const lead = runtime.startRoot({ prompt: 'go', label: 'Lead' });
    await whenState(runtime, () => userMessages(lead).some((m) => m.startsWith('[Report from subagent "Kid"')), "the kid's report");
    const text = userMessages(lead).find((m) => m.startsWith('[Report from subagent "Kid"'))!;
    assert.ok(text.includes('There are 3 apples.'));
    assert.equal(reportTitle(readReport(text)!), 'Kid finished its turn and is idle');
  });
});
