import * as assert from 'assert';
import { isArborError } from '../../../src/core/errors';
import { parseAgentArgument, parseRunStartOptions, parseSessionArgument } from '../../../src/extension/commandArguments';
import { makeRuntime } from '../../support/runtimeFixture';
import { disposeAfterEach } from '../../support/disposeAfterEach';
import { whenState } from '../../support/events';

const invalid = (e: unknown): boolean => isArborError(e, 'INPUT_INVALID');

describe('command arguments', () => {
  const track = disposeAfterEach();
  it('a History argument is none, an id, a session node, or a row that names no session; anything else is INPUT_INVALID', () => {
    assert.deepStrictEqual(parseSessionArgument('Resume', undefined), { kind: 'none' });
    assert.deepStrictEqual(parseSessionArgument('Resume', 's-1'), { kind: 'session', id: 's-1' });
    assert.deepStrictEqual(parseSessionArgument('Resume', { type: 'session', entry: { header: { id: 's-2' } }, children: [] }), { kind: 'session', id: 's-2' });
    assert.deepStrictEqual(parseSessionArgument('Resume', { type: 'notice', message: 'x' }), { kind: 'not-a-session' });
    for (const forged of [{ type: 'session' }, { type: 'session', entry: {} }, { type: 'session', entry: { header: { id: 1 } } }, null, 3, '', { type: 'x' }]) {
      assert.throws(() => parseSessionArgument('Resume', forged), invalid, JSON.stringify(forged));
    }
  });

  it('an agent argument is none, a real Agent, or a live id; forged objects and unknown ids are INPUT_INVALID', async () => {
    const { runtime } = makeRuntime({ version: 1, agents: { main: { turns: [[{ hang: true }]] } } });
    track(runtime);
    const root = runtime.startRoot({ prompt: 'go', label: 'main' });
    await whenState(runtime, () => root.status === 'running', 'the root to run');
    assert.strictEqual(parseAgentArgument(runtime, 'Stop', undefined), undefined);
    assert.strictEqual(parseAgentArgument(runtime, 'Stop', root), root);
    assert.strictEqual(parseAgentArgument(runtime, 'Stop', root.id), root);
    for (const forged of [{ id: root.id, label: 'main', kind: 'root' }, { id: 5 }, null, 7, 'unknown-id']) {
      assert.throws(() => parseAgentArgument(runtime, 'Stop', forged), invalid, String(forged));
    }
  });

  it("a run's options are none or { limits } with the setting's keys, each checked; anything else is INPUT_INVALID", () => {
    assert.strictEqual(parseRunStartOptions('Arbor: Run Agent', undefined), undefined);
    assert.strictEqual(parseRunStartOptions('Arbor: Run Agent', {}), undefined);
    // Only the keys given: the `arbor.limits` setting keeps every limit the caller left out.
    assert.deepStrictEqual(parseRunStartOptions('Arbor: Run Agent', { limits: { maxTokens: 50_000, maxWallTimeSeconds: 60 } }), { maxTokens: 50_000, maxWallTimeSeconds: 60 });
    for (const bad of [{ limits: { maxTokens: -1 } }, { limits: { maxTurns: 0 } }, { limits: { bogus: 1 } }, { limits: 5 }, { interactionMode: 'autonomous' }, 'fast', 42]) {
      assert.throws(() => parseRunStartOptions('Arbor: Run Agent', bad), (e: unknown) => isArborError(e) && e.code === 'INPUT_INVALID' && /Arbor: Run Agent options are invalid/.test(e.message), JSON.stringify(bad));
    }
  });
});
