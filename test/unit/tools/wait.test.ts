import * as assert from 'node:assert/strict';
import { MAX_WAIT_SECONDS, MIN_WAIT_SECONDS, waitTool } from '../../../src/core/tools';
import { makeRuntime, reasons, toolResults } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

const waitFor = (seconds: unknown) => ({ version: 1 as const, agents: { main: { turns: [[{ toolCalls: [{ name: 'wait', arguments: { seconds } }] }, { text: 'waited' }]] } } });

describe('the wait tool', () => {
  const track = disposeAfterEach();
  it('waits, then tells the model how long; it changes nothing, so plan mode keeps it', async () => {
    assert.equal(waitTool.readOnly, true);
    const { runtime } = makeRuntime(waitFor(MIN_WAIT_SECONDS));
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
    await agent.whenIdle();
    assert.deepEqual(reasons(agent), ['completed']);
    assert.deepEqual(JSON.parse(toolResults(agent)[0].content), { waited_seconds: MIN_WAIT_SECONDS });
    assert.equal(agent.lastTurnEnd?.finalText, 'waited');
  });

  it('ends at once when the turn is stopped, however long it was to wait', async () => {
    const { runtime } = makeRuntime(waitFor(MAX_WAIT_SECONDS));
    track(runtime);
    const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => agent.log.events.some((e) => e.type === 'tool_call' && e.call.name === 'wait'), 'the wait to start');
    runtime.stop(agent);
    await agent.whenIdle();
    assert.deepEqual(reasons(agent), ['aborted:user']);
  });

  it('refuses a wait outside its bounds with TOOL_ARGUMENTS_INVALID, without waiting', async () => {
    for (const seconds of [0, MAX_WAIT_SECONDS + 1, 'soon']) {
      const { runtime } = makeRuntime(waitFor(seconds));
      const agent = runtime.startRoot({ prompt: 'go', label: 'main' });
      await agent.whenIdle();
      const [result] = toolResults(agent);
      assert.equal(result.isError, true, String(seconds));
      assert.equal(JSON.parse(result.content).code, 'TOOL_ARGUMENTS_INVALID', String(seconds));
      await runtime.dispose();
    }
  });
});
