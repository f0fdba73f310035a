import * as assert from 'assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startExternalRoot } from '../../../src/core/external';
import { Runtime } from '../../../src/core/runtime';
import { CommandSandbox, DEFAULT_SANDBOX_SETTINGS, type SandboxAvailability } from '../../../src/core/sandbox';
import type { SessionEvent } from '../../../src/core/sessions/types';
import { testAgentConfig } from '../../support/acpTestAgent';
import { recordingModel, until } from '../../support/runtimeFixture';
import { makePlace, removePlace, requireSandbox, type SandboxPlace } from './sandboxFixture';

const ends = (events: readonly SessionEvent[]) => events.filter((e): e is Extract<SessionEvent, { type: 'turn_end' }> => e.type === 'turn_end');

function runtimeWith(place: SandboxPlace, availability?: () => Promise<SandboxAvailability>): Runtime {
  const sandbox = new CommandSandbox({ settings: { ...DEFAULT_SANDBOX_SETTINGS, mode: 'off' }, denyRead: [place.secrets], availability });
  return new Runtime({ model: recordingModel({ version: 1, agents: {} }).model, workspace: place.workspace, sandbox });
}

/**
 * An external agent configured with `sandbox: true`: its own process starts in the sandbox, even
 * with arbor.sandbox.mode off, and never without one. The test agent writes its sessions straight
 * to disk (ACP_TEST_AGENT_SESSIONS), which shows where its process may write.
 */
describe('an external agent started sandboxed (Linux, bubblewrap)', function () {
  this.timeout(60_000);
  let place: SandboxPlace;
  let runtime: Runtime | undefined;
  beforeEach(() => (place = makePlace()));
  afterEach(async () => {
    await runtime?.dispose();
    removePlace(place);
  });

  describe('with a sandbox', () => {
    requireSandbox();

    it('writes in its run folder but not outside it', async () => {
      runtime = runtimeWith(place);
      const inside = path.join(place.workspace, 'sessions');
      const a = startExternalRoot(runtime, { config: testAgentConfig({ sandbox: true, env: { ACP_TEST_AGENT_SESSIONS: inside } }), prompt: 'say: inside' });
      await until(() => ends(a.log.events).length === 1, 'the first agent\'s turn end', 30_000);
      assert.deepStrictEqual(ends(a.log.events).map((e) => e.reason), ['completed']);
      assert.strictEqual(fs.readdirSync(inside).length, 1, 'its session was written in the workspace');

      const outside = path.join(place.outside, 'sessions');
      const b = startExternalRoot(runtime, { config: testAgentConfig({ sandbox: true, env: { ACP_TEST_AGENT_SESSIONS: outside } }), prompt: 'say: outside' });
      await until(() => ends(b.log.events).length === 1, 'the second agent\'s turn end', 30_000);
      assert.strictEqual(fs.existsSync(outside), false, 'nothing was written outside the run folder');
      assert.deepStrictEqual(fs.readdirSync(place.outside), ['marker']);
    });
  });

  it('does not start without a sandbox, and says what to install', async () => {
    runtime = runtimeWith(place, async () => ({ ok: false, missing: 'bubblewrap (bwrap) not found on PATH: install bubblewrap and socat (Debian, Ubuntu: sudo apt install bubblewrap socat)' }));
    const a = startExternalRoot(runtime, { config: testAgentConfig({ sandbox: true, env: { ACP_TEST_AGENT_SESSIONS: path.join(place.workspace, 'sessions') } }), prompt: 'say: hi' });
    await until(() => ends(a.log.events).length === 1, 'the turn end', 30_000);
    const end = ends(a.log.events)[0];
    assert.strictEqual(end.reason, 'error');
    assert.match(JSON.stringify(end), /apt install bubblewrap socat/);
    assert.strictEqual(fs.existsSync(path.join(place.workspace, 'sessions')), false);
  });
});
