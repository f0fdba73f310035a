import assert from 'node:assert/strict';
import { blockedItems } from '../../../src/core/interaction';

describe('blockedItems', () => {
  it('lists each BLOCKED line of a final result, without the marker, in order', () => {
    const text = 'Renamed the helper.\nBLOCKED: whether to delete the old file\nAssumed UTF-8.\n- **BLOCKED**: which branch to push to';
    assert.deepEqual(blockedItems(text), ['whether to delete the old file', 'which branch to push to']);
  });

  it('finds none in a result that only mentions the word', () => {
    assert.deepEqual(blockedItems('Nothing was BLOCKED: all done.\nDone.'), []);
  });

  it('names an empty item rather than dropping it', () => {
    assert.deepEqual(blockedItems('BLOCKED:'), ['(no decision named)']);
  });
});
