import * as assert from 'node:assert/strict';
import * as z from 'zod';
import { lazySchema } from '../../src/core/lazySchema';

describe('lazySchema', () => {
  it('builds the schema on first use, once, and behaves as it', () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds++;
      return z.strictObject({ name: z.string().min(1) });
    });
    assert.equal(builds, 0);
    assert.deepEqual(schema.parse({ name: 'a' }), { name: 'a' });
    assert.equal(schema.safeParse({ name: '' }).success, false);
    assert.throws(() => schema.parse({ name: 'a', extra: 1 }));
    assert.ok(schema instanceof z.ZodObject);
    assert.equal(builds, 1);
  });

  it('composes into other schemas', () => {
    const item = lazySchema(() => z.object({ kind: z.literal('a'), n: z.number() }));
    const list = z.array(item);
    const union = z.discriminatedUnion('kind', [item, z.object({ kind: z.literal('b') })]);
    assert.deepEqual(list.parse([{ kind: 'a', n: 1 }]), [{ kind: 'a', n: 1 }]);
    assert.deepEqual(union.parse({ kind: 'b' }), { kind: 'b' });
    assert.equal(union.safeParse({ kind: 'a' }).success, false);
    assert.deepEqual(item.extend({ m: z.string() }).parse({ kind: 'a', n: 1, m: 'x' }), { kind: 'a', n: 1, m: 'x' });
  });
});
