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

  it('under mutation testing, is built again for each test and each planted bug, and once within one', () => {
    // Stryker's instrumented code keeps its own reference to this object, so replacing it here
    // for a moment leaves a mutation run of this test undisturbed.
    const holder = globalThis as { __stryker__?: unknown };
    const original = holder.__stryker__;
    let builds = 0;
    const schema = lazySchema(() => {
      builds++;
      return z.string();
    });
    try {
      const run: { activeMutant?: string; currentTestId?: string } = { currentTestId: 'first test' };
      holder.__stryker__ = run;
      schema.parse('a');
      schema.parse('b');
      assert.equal(builds, 1, 'one build within a test');
      run.currentTestId = 'second test';
      schema.parse('c');
      assert.equal(builds, 2, 'the next test builds it again');
      run.activeMutant = '7';
      schema.parse('d');
      assert.equal(builds, 3, 'so does the next planted bug');
    } finally {
      if (original === undefined) delete holder.__stryker__;
      else holder.__stryker__ = original;
    }
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

describe('lazySchema stands in for the schema wherever zod or a caller looks', () => {
  const build = () =>
    z
      .object({ path: z.string().describe('A path.'), limit: z.number().int().min(1).optional() })
      .describe('Where to look.');

  it("gives zod's JSON Schema converter the same schema, descriptions included", () => {
    const lazy = lazySchema(build);
    assert.deepEqual(z.toJSONSchema(lazy, { io: 'input' }), z.toJSONSchema(build(), { io: 'input' }));
    assert.equal(lazy.description, 'Where to look.');
    assert.deepEqual(z.toJSONSchema(z.object({ where: lazy })), z.toJSONSchema(z.object({ where: build() })));
  });

  it('converts to the same JSON Schema when the schema itself is a transform, an optional or a default', () => {
    const builds: (() => z.ZodType)[] = [
      () => z.object({ label: z.string().optional(), text: z.string() }).transform(({ label, text }) => ({ label: label ?? text, text })),
      () => z.string().describe('Free text.').optional(),
      () => z.number().int().default(4),
    ];
    for (const make of builds) {
      assert.deepEqual(z.toJSONSchema(lazySchema(make), { io: 'input' }), z.toJSONSchema(make(), { io: 'input' }));
      assert.deepEqual(z.toJSONSchema(z.object({ inner: lazySchema(make) }), { io: 'input' }), z.toJSONSchema(z.object({ inner: make() }), { io: 'input' }));
    }
  });

  it("shows the schema's own keys, its shape and its standard-schema face", async () => {
    const lazy = lazySchema(build);
    assert.deepEqual(Object.keys(lazy).sort(), Object.keys(build()).sort());
    assert.deepEqual(Object.keys(lazy.shape), ['path', 'limit']);
    assert.ok('safeParse' in lazy);
    const checked = await lazy['~standard'].validate({ path: 'a' });
    assert.deepEqual(checked, { value: { path: 'a' } });
  });
});
