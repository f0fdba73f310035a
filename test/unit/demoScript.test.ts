import * as assert from 'assert';
import { parseScript } from '../../src/core/models/scriptedModel';
import { Runtime } from '../../src/core/runtime';
import { ScriptedModel } from '../../src/core/models/scriptedModel';
import { DEMO_ROOT_LABEL, demoScript } from '../../src/extension/demo/demoScript';

describe('the demo script', () => {
  it('is a valid script with the four demo agents', () => {
    const parsed = parseScript(demoScript);
    for (const label of [DEMO_ROOT_LABEL, 'Researcher', 'Watcher', 'Summarizer']) assert.ok(parsed.agents.get(label), label);
  });

  it("tells a user who runs their own task on the demo model how to run it for real", async () => {
    const runtime = new Runtime({ model: new ScriptedModel(demoScript) });
    const agent = runtime.startRoot({ prompt: 'Refactor the parser', label: 'My task' });
    await agent.whenIdle();
    assert.match(agent.lastTurnEnd!.finalText, /scripted demo model/);
    assert.match(agent.lastTurnEnd!.finalText, /"Refactor the parser"/);
    assert.match(agent.lastTurnEnd!.finalText, /Arbor: Select Model/);
    await runtime.dispose();
  });
});
