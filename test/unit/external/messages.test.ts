import * as assert from 'assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Agent } from '../../../src/core/agents';
import { startExternalRoot } from '../../../src/core/external';
import { ACP_TEST_AGENT_SCRIPT, testAgentConfig } from '../../support/acpTestAgent';
import { makeRuntime, until } from '../../support/runtimeFixture';

const WAIT = 20_000;
const ends = (agent: Agent) => agent.log.events.filter((e) => e.type === 'turn_end');

/** What a person and an external agent are told: the whole command, the agent's own reason, no Arbor tool names. */
describe('external agents\' messages', function () {
  this.timeout(60_000);
  let workspace: string;
  let runtime: ReturnType<typeof makeRuntime>['runtime'];
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'arbor-acp-messages-'));
    ({ runtime } = makeRuntime({ version: 1, agents: {} }, { workspace }));
  });
  afterEach(async () => {
    await runtime.dispose();
    fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('a needed sign-in names the whole command line to run and the agent\'s own reason', async () => {
    const env = { ACP_TEST_AGENT_AUTH: 'required', ACP_TEST_AGENT_AUTH_REASON: 'Gemini API key is missing or not configured.' };
    const agent = startExternalRoot(runtime, { config: testAgentConfig({ env }), prompt: 'say: hi' });
    await until(() => ends(agent).length === 1, 'the turn end', WAIT);
    assert.strictEqual(agent.lastTurnEnd?.code, 'EXTERNAL_AGENT_AUTH_REQUIRED');
    const message = agent.lastTurnEnd?.message ?? '';
    assert.ok(message.includes(`Run \`${process.execPath} ${ACP_TEST_AGENT_SCRIPT}\``), message);
    assert.ok(message.includes('It says: Gemini API key is missing or not configured.'), message);
  });

  it('a file that does not exist is said to the agent without naming Arbor\'s own tools', async () => {
    const agent = startExternalRoot(runtime, { config: testAgentConfig(), prompt: 'read-soft: missing.txt' });
    await until(() => ends(agent).length === 1, 'the turn end', WAIT);
    const said = agent.lastTurnEnd?.finalText ?? '';
    assert.match(said, /Reading failed: .*"missing.txt" does not exist\./);
    assert.doesNotMatch(said, /list_files/);
  });
});
