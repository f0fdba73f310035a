import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { liveRootRecordSchema } from '../../../src/core/restore/liveRecord';
import { isLiveRecordAtAGlance } from '../../../src/core/restore/liveRecordFastCheck';

/*
 * The restore's quick record check stands in for the record's schema: it must never accept what
 * the schema rejects, and what it accepts must be what the schema gives back (no key the schema
 * would strip), so a record is used the same either way.
 */
describe('restore: the quick live-state record check agrees with the schema', () => {
  const header = { type: 'header', version: 1, id: 'lead-1', createdAt: '2026-12-01T14:00:00.000Z', parentSession: 'root-1', delegationDepth: 1, kind: 'continuable', label: 'Lead', workspace: '/w', interactionMode: 'interactive', resumedFrom: 'r', external: 'e', definition: { name: 'n', file: 'f' } };
  const hold = { reason: 'stop', since: '2026-12-01T14:00:00.000Z', release: 'waking-send', detail: 'stopped', interrupted: true };
  const base = {
    version: 1,
    root: 'root-1',
    writtenAt: '2026-12-01T14:00:00.000Z',
    pid: 42,
    run: { mode: 'interactive', limits: { maxTurns: 10 }, tokensUsed: 10, turnsUsed: 1, modelCallsUsed: 2, cost: 0.5, unpricedTokens: 0, model: 'demo', folder: '/w', worktree: { repo: '/r', root: '/w', folder: '/w', branch: 'b', base: 'abc' }, paused: { reason: 'budget', since: 'x', release: 'raise' } },
    agents: [
      {
        id: 'root-1',
        kind: 'root',
        label: 'Root',
        holds: [hold],
        queued: 1,
        running: false,
        planMode: true,
        cost: 0,
        warning: 'w',
        slice: { limits: { tokens: 100, cost: 1, modelCalls: 5, wallTimeSeconds: 60 }, tokensUsed: 10, cost: 0.1, modelCallsUsed: 1, from: 'root-1', paused: { reason: 'budget', since: 'x', release: 'raise' } },
        ended: [{ id: 'e', label: 'E', kind: 'one-shot', how: 'done', tokens: 3, cost: 0, creationOrder: 2 }],
        order: 1,
        past: { header: { ...header, id: 'root-1', kind: 'root', delegationDepth: 0, parentSession: undefined }, length: 300, turns: 2, tokens: { input: 5, output: 6 }, lastEnd: { turn: 2, reason: 'aborted', cause: 'user', message: 'm', finalText: 't' }, queue: { ids: [3], lastId: 3 }, plan: [{ step: 's', status: 'done' }] },
      },
      { id: 'lead-1', parent: 'root-1', kind: 'continuable', label: 'Lead', holds: [], queued: 0, running: true, cost: 1, order: 2, past: { header, length: 10, turns: 0, tokens: { input: 0, output: 0 }, queue: { ids: [], lastId: 0 } } },
    ],
  };
  // As JSON gives it: undefined keys gone.
  const valid = JSON.parse(JSON.stringify(base)) as Record<string, unknown>;

  const junk = fc.oneof(
    fc.constant(null),
    fc.boolean(),
    fc.constantFrom(-1, 1.5, 2 ** 53, 0, '', 'x', 'stop', 'root', 'interactive', 'completed', 'header', '2026-12-01T14:00:00Z', '2026-02-30T14:00:00.000Z', '2026-12-01T14:00:00.000+01:00', '2026-13-01T00:00:00.000Z', 'not a date'),
    fc.constant([]),
    fc.constant({}),
    fc.constant({ extra: 1 }),
  );

  /** Every path to a value in the record. */
  function paths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
    if (Array.isArray(value)) return [at, ...value.flatMap((v, i) => paths(v, [...at, i]))];
    if (value && typeof value === 'object') return [at, ...Object.entries(value).flatMap(([k, v]) => paths(v, [...at, k]))];
    return [at];
  }
  const all = paths(valid).filter((p) => p.length > 0);

  const mutated = fc.array(fc.record({ path: fc.constantFrom(...all), how: fc.constantFrom('replace', 'delete', 'add key'), value: junk }), { minLength: 1, maxLength: 3 }).map((changes) => {
    const record = structuredClone(valid);
    for (const { path, how, value } of changes) {
      let at: Record<string | number, unknown> = record;
      for (const key of path.slice(0, -1)) {
        const next = at?.[key];
        if (!next || typeof next !== 'object') return record;
        at = next as Record<string | number, unknown>;
      }
      const last = path[path.length - 1];
      // A mutation before this one made an object an array: its keys (`length` among them) are gone.
      if (Array.isArray(at) && typeof last !== 'number') return record;
      if (how === 'replace') at[last] = value;
      else if (how === 'delete') {
        if (Array.isArray(at)) at.splice(Number(last), 1);
        else delete at[last];
      } else if (at[last] && typeof at[last] === 'object' && !Array.isArray(at[last])) (at[last] as Record<string, unknown>).unknownKey = value;
    }
    return record;
  });

  it('accepts the records the recorder writes, and gives them back as the schema does', () => {
    assert.equal(isLiveRecordAtAGlance(valid), true);
    assert.deepEqual(liveRootRecordSchema().parse(valid), valid);
  });

  it('never accepts a record the schema rejects or would change', () => {
    let accepted = 0;
    fc.assert(
      fc.property(mutated, (record) => {
        if (!isLiveRecordAtAGlance(record)) return;
        accepted++;
        const parsed = liveRootRecordSchema().safeParse(record);
        assert.ok(parsed.success, `accepted what the schema rejects: ${JSON.stringify(record)}`);
        assert.deepEqual(parsed.data, record);
      }),
      { numRuns: 3000 },
    );
    // The property tested something: some mutations keep a record valid (a string for a string).
    assert.ok(accepted > 0);
  });
});
