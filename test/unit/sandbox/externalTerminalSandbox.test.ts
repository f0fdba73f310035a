import * as assert from 'assert';
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { isArborError } from '../../../src/core/errors';
import { ExternalAgentClient, runtimeServices } from '../../../src/core/external';
import { MemoryApprovalRuleStore } from '../../../src/core/interaction';
import { Runtime } from '../../../src/core/runtime';
import { CommandSandbox, DEFAULT_SANDBOX_SETTINGS, type SandboxSettings } from '../../../src/core/sandbox';
import { approver, recordingModel, until } from '../../support/runtimeFixture';
import { makePlace, marked, removePlace, requireSandbox, type SandboxPlace } from './sandboxFixture';

/** An external agent's `terminal/create` runs in the same sandbox as run_command. */
describe('an external agent\'s terminals in the sandbox (Linux, bubblewrap)', function () {
  this.timeout(30_000);
  requireSandbox();
  let place: SandboxPlace;
  let runtime: Runtime | undefined;
  let client: ExternalAgentClient | undefined;
  const signal = new AbortController().signal;
  beforeEach(() => (place = makePlace()));
  afterEach(async () => {
    client?.dispose();
    await runtime?.dispose();
    removePlace(place);
  });

  async function serve(settings: Partial<SandboxSettings>, rules: string[] = []) {
    const sandbox = new CommandSandbox({ settings: { ...DEFAULT_SANDBOX_SETTINGS, ...settings }, denyRead: [place.secrets] });
    runtime = new Runtime({ model: recordingModel({ version: 1, agents: {} }).model, workspace: place.workspace, sandbox, approvalRules: new MemoryApprovalRuleStore(rules.map((pattern) => ({ kind: 'command', pattern, scope: 'workspace' }))) });
    const person = approver('Allow once');
    runtime.interaction.registerProvider(person.provider);
    const agent = runtime.startRoot({ prompt: 'wait', label: 'lead' });
    await agent.whenIdle();
    client = new ExternalAgentClient(agent, runtimeServices(runtime), () => undefined);
    return { client, prompts: person.prompts };
  }

  const terminal = (script: string): acp.CreateTerminalRequest => ({ sessionId: 's', command: 'sh', args: ['-c', script] });

  it('cannot write outside the run folder or read the deny-list, and the prompt says it runs sandboxed', async () => {
    const { client: c, prompts } = await serve({ mode: 'preferred' });
    const { terminalId } = await c.createTerminal(terminal(`echo x > ${place.marker}; cat ${place.secretFile}; echo in > inside.txt`), signal);
    await c.terminals.waitForExit(terminalId, signal);
    const { output } = c.terminals.output(terminalId);
    assert.match(output, /Read-only file system/);
    assert.doesNotMatch(output, /TOP-SECRET/);
    assert.strictEqual(fs.readFileSync(place.marker, 'utf8'), 'original\n');
    assert.strictEqual(fs.readFileSync(path.join(place.workspace, 'inside.txt'), 'utf8'), 'in\n');
    assert.match(prompts[0].detail ?? '', /Runs sandboxed: writes only in/);
  });

  it('killing the terminal ends its sandboxed process tree', async () => {
    const { client: c } = await serve({ mode: 'preferred' }, ['*']);
    const mark = randomUUID();
    const { terminalId } = await c.createTerminal({ sessionId: 's', command: 'sh', args: ['-c', `(trap '' TERM; sleep 987) & sleep 986 & touch started; wait`], env: [{ name: 'ARBOR_TEST_MARK', value: mark }] }, signal);
    await until(() => fs.existsSync(path.join(place.workspace, 'started')), 'the command to start', 20_000);
    await until(() => marked(mark).length >= 2, 'its processes to be found by their mark', 20_000);
    c.terminals.kill(terminalId);
    await until(() => marked(mark).length === 0, 'every process of the terminal to end', 20_000);
  });

  it('required without a sandbox runs nothing', async () => {
    const sandbox = new CommandSandbox({ settings: { ...DEFAULT_SANDBOX_SETTINGS, mode: 'required' }, availability: async () => ({ ok: false, missing: 'bubblewrap (bwrap) not found on PATH' }) });
    runtime = new Runtime({ model: recordingModel({ version: 1, agents: {} }).model, workspace: place.workspace, sandbox, approvalRules: new MemoryApprovalRuleStore([{ kind: 'command', pattern: '*', scope: 'workspace' }]) });
    const agent = runtime.startRoot({ prompt: 'wait', label: 'lead' });
    await agent.whenIdle();
    client = new ExternalAgentClient(agent, runtimeServices(runtime), () => undefined);
    await assert.rejects(client.createTerminal(terminal('touch ran.txt'), signal), (err: unknown) => isArborError(err, 'SANDBOX_UNAVAILABLE'));
    assert.strictEqual(fs.existsSync(path.join(place.workspace, 'ran.txt')), false);
  });
});
