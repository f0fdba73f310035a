import * as assert from 'assert';
import fc from 'fast-check';
import { isArborError } from '../../../src/core/errors';
import * as scopeRuns from '../../../src/core/scopes/scopeRuns';
import type { WriteScope } from '../../../src/core/scopes';
import * as globs from '../../../src/core/workspace/globs';

const { describeScope } = scopeRuns;
const { globMatcher } = globs;
const narrowScope = (parent: WriteScope | undefined, requested: readonly string[] | undefined, setBy: string) => scopeRuns.narrowScope(globs, parent, requested, setBy);
const scopeAllows = (scope: WriteScope, relative: string) => scopeRuns.scopeAllows(globs, scope, relative);
const globWithin = (a: string, b: string) => scopeRuns.globWithin(globs, a, b);

const SEGMENTS = ['src', 'docs', 'a', 'b', 'x.ts', 'y.md', '.hidden'];
const GLOB_SEGMENTS = [...SEGMENTS, '*', '**', '*.ts', '*.md', '[ab]', '{a,b}', 'a*', '?'];

const pathArb = fc.array(fc.constantFrom(...SEGMENTS), { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));
const globArb = fc.array(fc.constantFrom(...GLOB_SEGMENTS), { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));
const scopeArb = fc.array(globArb, { minLength: 1, maxLength: 3 });
/** Every path the generators can make up to depth 4 is too many; a fixed sample of them covers the segments. */
const PATHS = fc.sample(pathArb, { numRuns: 400, seed: 7 });

describe('write scopes: narrowing', () => {
  it('a child\'s effective scope is always within its parent\'s (property)', () => {
    fc.assert(
      fc.property(scopeArb, scopeArb, scopeArb, (grand, parentAsk, childAsk) => {
        const top = narrowScope(undefined, grand, 'the run').scope!;
        const parent = narrowScope(top, parentAsk, 'delegation by "lead"').scope!;
        const child = narrowScope(parent, childAsk, 'delegation by "worker"').scope!;
        for (const p of PATHS) {
          if (scopeAllows(child, p)) assert.ok(scopeAllows(parent, p), `${p} is in the child's ${describeScope(child)} but not the parent's ${describeScope(parent)}`);
          if (scopeAllows(parent, p)) assert.ok(scopeAllows(top, p), `${p} in ${describeScope(parent)} but not ${describeScope(top)}`);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('globWithin only says yes when every path of the one matches the other (property)', () => {
    fc.assert(
      fc.property(globArb, globArb, (a, b) => {
        const na = narrowScope(undefined, [a], 'x').scope!.globs[0];
        const nb = narrowScope(undefined, [b], 'x').scope!.globs[0];
        if (!globWithin(na, nb)) return;
        const ma = globMatcher(na);
        const mb = globMatcher(nb);
        for (const p of PATHS) if (ma(p)) assert.ok(mb(p), `${p} matches ${na} but not ${nb}, yet ${na} was taken to be inside ${nb}`);
      }),
      { numRuns: 1000 },
    );
  });

  it('a request inside the parent\'s scope is kept as asked; a wider one is narrowed and says which globs were', () => {
    const parent = narrowScope(undefined, ['src/**'], 'delegation by "lead"').scope!;
    const inside = narrowScope(parent, ['src/parser/**', 'src/*.ts'], 'delegation by "worker"');
    assert.deepStrictEqual(inside.narrowed, []);
    assert.deepStrictEqual(inside.scope!.terms, [['src/parser/**'], ['src/*.ts']]);
    const wider = narrowScope(parent, ['**', 'docs/**', '*.ts'], 'delegation by "worker"');
    assert.deepStrictEqual(wider.narrowed, ['**', 'docs/**', '**/*.ts']);
    // "**" narrows to the parent's; "docs/**" has nothing in common with it; "*.ts" is kept beside it.
    assert.deepStrictEqual(wider.scope!.terms, [['src/**'], ['src/**', '**/*.ts']]);
    assert.ok(scopeAllows(wider.scope!, 'src/deep/x.ts'));
    assert.ok(!scopeAllows(wider.scope!, 'docs/readme.md'));
    assert.ok(!scopeAllows(wider.scope!, 'x.ts'));
    assert.deepStrictEqual(wider.scope!.setBy, ['delegation by "lead"', 'delegation by "worker"']);
    const outside = narrowScope(parent, ['docs/**'], 'delegation by "worker"');
    assert.deepStrictEqual(outside.scope!.terms, [], 'a scope wholly outside the parent\'s lets the child change nothing');
    assert.strictEqual(describeScope(outside.scope!), 'no file');
  });

  it('no request inherits the parent\'s scope; a name without a folder means any depth', () => {
    const parent = narrowScope(undefined, ['*.md'], 'the run').scope!;
    assert.strictEqual(narrowScope(parent, undefined, 'x').scope, parent);
    assert.ok(scopeAllows(parent, 'docs/guide/intro.md'));
    assert.ok(scopeAllows(parent, 'README.md'));
    assert.ok(!scopeAllows(parent, 'src/a.ts'));
  });

  it('refuses globs a scope cannot hold, naming them', () => {
    for (const bad of ['/etc/**', '../x/**', 'src/../../x', '!src/**', 'src/@(a|b)', 'src/{a,b/c}', 'src\\\\x']) {
      assert.throws(() => narrowScope(undefined, [bad], 'x'), (err: unknown) => isArborError(err) && (err.code === 'TOOL_ARGUMENTS_INVALID' || err.code === 'PATH_OUTSIDE_WORKSPACE') && err.message.includes(bad.slice(0, 3)), bad);
    }
  });
});
