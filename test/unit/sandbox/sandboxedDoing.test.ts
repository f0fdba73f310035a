import * as assert from 'assert';
import { describeDoing } from '../../../src/core/conversation';
import type { ToolCall } from '../../../src/core/models/types';
import { CommandSandbox, DEFAULT_SANDBOX_SETTINGS } from '../../../src/core/sandbox';

const running = (command: string) => ({ kind: 'tools' as const, calls: [{ id: 'c1', name: 'run_command', arguments: JSON.stringify({ command }) } satisfies ToolCall] });

describe('an agent node while its command runs in the sandbox', () => {
  it('says "running (sandboxed): npm test" when commands run sandboxed, and "running: npm test" otherwise', () => {
    assert.strictEqual(describeDoing({ activity: running('npm test'), commandsSandboxed: true }), 'running (sandboxed): npm test');
    assert.strictEqual(describeDoing({ activity: running('npm test'), commandsSandboxed: false }), 'running: npm test');
  });

  it('counts as sandboxing only once a sandbox was found, never while the mode is off', async () => {
    const found = new CommandSandbox({ settings: DEFAULT_SANDBOX_SETTINGS, availability: async () => ({ ok: true, bwrap: '/usr/bin/bwrap', socat: '/usr/bin/socat', disableUserns: true }) });
    assert.strictEqual(found.sandboxesCommands, false);
    await found.plan(['/']);
    assert.strictEqual(found.sandboxesCommands, true);
    found.setSettings({ ...DEFAULT_SANDBOX_SETTINGS, mode: 'off' });
    assert.strictEqual(found.sandboxesCommands, false);
    const missing = new CommandSandbox({ settings: DEFAULT_SANDBOX_SETTINGS, availability: async () => ({ ok: false, missing: 'bwrap' }) });
    await missing.plan(['/']);
    assert.strictEqual(missing.sandboxesCommands, false);
  });
});
