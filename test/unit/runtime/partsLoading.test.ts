import * as assert from 'node:assert/strict';
import { isArborError, partOnFirstUse } from '../../../src/core';
import { ToolCatalog } from '../../../src/core/tools/catalog';
import { defineTool } from '../../../src/core/tools/defineTool';
import * as z from 'zod';

/** The seam every part of Arbor that loads on first use goes through (src/core/partLoader.ts). */
describe('a part loaded on first use', () => {
  it('loads at its first use, not before, once, and gives the same module after', () => {
    let loads = 0;
    const part = partOnFirstUse('the test part (dist/test.js)', () => {
      loads++;
      return { answer: 42 };
    });
    assert.equal(loads, 0, 'made without loading');
    const first = part();
    assert.equal(part(), first);
    assert.equal(first.answer, 42);
    assert.equal(loads, 1);
  });

  it('that fails to load says which part and why (PART_LOAD_FAILED), keeps nothing, and loads at the next use', () => {
    let fail = true;
    let loads = 0;
    const part = partOnFirstUse('the test part (dist/test.js)', () => {
      loads++;
      if (fail) throw new Error("Cannot find module './test.js'");
      return { answer: 42 };
    });
    assert.throws(part, (err: unknown) => {
      assert.ok(isArborError(err, 'PART_LOAD_FAILED'), `a PART_LOAD_FAILED error (got ${String(err)})`);
      assert.match(err.message, /could not load the test part \(dist\/test\.js\): Cannot find module '\.\/test\.js'/);
      assert.match(err.message, /reinstall/i, 'it says what to do');
      assert.deepEqual(err.details, { part: 'the test part (dist/test.js)' });
      return true;
    });
    fail = false;
    assert.equal(part().answer, 42, 'the next use loads it');
    assert.equal(loads, 2);
  });

  it('that fails to load when a tool calls it gives the model an error result naming the part, and the turn goes on', async () => {
    const part = partOnFirstUse('the test part (dist/test.js)', (): { run(): string } => {
      throw new Error("Cannot find module './test.js'");
    });
    const tool = defineTool<z.ZodObject, unknown>({ name: 'lazy_tool', description: 'Runs what a part does.', schema: () => z.object({}), run: () => ({ content: part().run() }) });
    const result = await new ToolCatalog<unknown>().add(tool).execute({ id: 'c1', name: 'lazy_tool', arguments: '{}' }, {}, () => true);
    assert.equal(result.isError, true);
    assert.match(result.content, /PART_LOAD_FAILED/);
    assert.match(result.content, /could not load the test part/);
  });
});
