import assert from 'node:assert/strict';
import { isArborError } from '../../../src/core/errors';
import {
  INTERNAL_RUN_KEYS,
  PUBLIC_ENTRY_INTERNAL_KEYS,
  parsePublicRunRequest,
  parsePublicRunRequestFrom,
  parsePublicRunRequestStrict,
  persistableRunContext,
  resolveInteractionPolicy,
  type InternalRunKey,
  type RunContext,
} from '../../../src/core/interaction';

/** Each value would change the mode if it got through. */
const INTERNAL_VALUES: Record<InternalRunKey, unknown> = {
  interactionMode: 'autonomous',
  nonInteractive: true,
  disableClarification: true,
  channelName: 'github',
};

/** Every non-empty combination of the four internal keys. */
function combinations(): InternalRunKey[][] {
  const out: InternalRunKey[][] = [];
  for (let mask = 1; mask < 1 << INTERNAL_RUN_KEYS.length; mask++) {
    out.push(INTERNAL_RUN_KEYS.filter((_, i) => mask & (1 << i)));
  }
  return out;
}

function requestWith(keys: readonly InternalRunKey[]): Record<string, unknown> {
  const req: Record<string, unknown> = { prompt: 'Fix the flaky test', label: 'Fixer' };
  for (const key of keys) req[key] = INTERNAL_VALUES[key];
  return req;
}

describe('parsePublicRunRequest (lenient: strips internal keys)', () => {
  it('accepts a prompt and an optional label', () => {
    assert.deepEqual(parsePublicRunRequest({ prompt: 'Hello' }), { prompt: 'Hello' });
    assert.deepEqual(parsePublicRunRequest({ prompt: 'Hello', label: 'Greeter' }), { prompt: 'Hello', label: 'Greeter' });
  });

  it('rejects a missing, blank or oversized prompt with INPUT_INVALID', () => {
    for (const input of [{}, { prompt: '' }, { prompt: '   ' }, { prompt: 'x'.repeat(100_001) }, { prompt: 42 }, null, 'prompt', []]) {
      assert.throws(() => parsePublicRunRequest(input), (e) => isArborError(e, 'INPUT_INVALID'), JSON.stringify(input));
    }
  });

  for (const keys of combinations()) {
    it(`strips ${keys.join(' + ')} and reports it`, () => {
      const reported: InternalRunKey[][] = [];
      const parsed = parsePublicRunRequest(requestWith(keys), { onStripped: (k) => reported.push([...k]) });
      assert.deepEqual(parsed, { prompt: 'Fix the flaky test', label: 'Fixer' });
      for (const key of INTERNAL_RUN_KEYS) assert.equal(key in parsed, false);
      assert.deepEqual(reported, [keys]);
    });
  }

  it('strips snake_case spellings and keys nested in a context object', () => {
    const reported: InternalRunKey[][] = [];
    const parsed = parsePublicRunRequest(
      { prompt: 'p', disable_clarification: true, context: { channel_name: 'github' }, configurable: { interactionMode: 'autonomous' } },
      { onStripped: (k) => reported.push([...k]) },
    );
    assert.deepEqual(parsed, { prompt: 'p' });
    assert.deepEqual(reported, [['interactionMode', 'disableClarification', 'channelName']]);
  });

  it('does not report anything for a clean request', () => {
    let called = false;
    parsePublicRunRequest({ prompt: 'p' }, { onStripped: () => (called = true) });
    assert.equal(called, false);
  });
});

describe('parsePublicRunRequestStrict (rejects internal keys)', () => {
  for (const keys of combinations()) {
    it(`rejects ${keys.join(' + ')} with INTERNAL_KEY_REJECTED naming them`, () => {
      assert.throws(
        () => parsePublicRunRequestStrict(requestWith(keys)),
        (e) => isArborError(e, 'INTERNAL_KEY_REJECTED') && keys.every((k) => e.message.includes(k)),
      );
    });
  }

  it('accepts a clean request', () => {
    assert.deepEqual(parsePublicRunRequestStrict({ prompt: 'p' }), { prompt: 'p' });
  });
});

describe('public entry points', () => {
  it('reject internal keys from the exported API, commands and the webview, and strip them from URIs', () => {
    assert.deepEqual(PUBLIC_ENTRY_INTERNAL_KEYS, { api: 'reject', command: 'reject', webview: 'reject', uri: 'strip' });
    for (const entry of ['api', 'command', 'webview'] as const) {
      assert.throws(() => parsePublicRunRequestFrom(entry, requestWith(['disableClarification'])), (e) => isArborError(e, 'INTERNAL_KEY_REJECTED'));
    }
    let stripped: readonly string[] = [];
    const parsed = parsePublicRunRequestFrom('uri', requestWith(['channelName']), { onStripped: (k) => (stripped = k) });
    assert.deepEqual(parsed, { prompt: 'Fix the flaky test', label: 'Fixer' });
    assert.deepEqual(stripped, ['channelName']);
  });

  it('cannot disable clarification, impersonate the GitHub channel, or pick a mode when merged into a run context', () => {
    for (const keys of combinations()) {
      const parsed = parsePublicRunRequest(requestWith(keys));
      // An entry point that naively spreads the request into the context still gets interactive.
      const ctx = { ...parsed } as RunContext;
      assert.equal(resolveInteractionPolicy(ctx).mode, 'interactive', keys.join('+'));
    }
  });

  it('cannot turn a scheduled run back to interactive', () => {
    const trusted: RunContext = { nonInteractive: true };
    const parsed = parsePublicRunRequest({ prompt: 'p', interactionMode: 'interactive', nonInteractive: false });
    const ctx = { ...trusted, ...parsed } as RunContext;
    const policy = resolveInteractionPolicy(ctx);
    assert.equal(policy.mode, 'scheduled');
    assert.equal(policy.isToolVisible('ask_user_question'), false);
  });
});

describe('persistableRunContext', () => {
  it('drops the runtime-only keys and keeps only the resolved interaction mode', () => {
    const persisted = persistableRunContext({ nonInteractive: true, channelName: 'github', disableClarification: true, workspace: '/w' });
    assert.deepEqual(persisted, { interactionMode: 'scheduled', workspace: '/w' });
    for (const key of ['nonInteractive', 'channelName', 'disableClarification']) assert.equal(key in persisted, false);
  });

  it('keeps a scheduled run scheduled when it is resumed from what was persisted', () => {
    const persisted = persistableRunContext({ nonInteractive: true });
    assert.equal(resolveInteractionPolicy(persisted).mode, 'scheduled');
    assert.equal(resolveInteractionPolicy(persistableRunContext({ channelName: 'github' })).mode, 'webhook');
  });

  it('keeps an explicit mode and refuses an unknown one', () => {
    assert.deepEqual(persistableRunContext({ interactionMode: 'autonomous', nonInteractive: true }), { interactionMode: 'autonomous' });
    assert.throws(() => persistableRunContext({ interactionMode: 'bogus' }), (e) => isArborError(e, 'POLICY_INVALID'));
  });
});
