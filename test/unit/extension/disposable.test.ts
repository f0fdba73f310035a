import * as assert from 'node:assert/strict';
import { Disposable } from '../../../src/extension/disposable';

/** An owner that registers what it is handed, and a log of what was released. */
class Owner extends Disposable {
  register(name: string, released: string[]): { dispose(): void } {
    return this._register({ dispose: () => void released.push(name) });
  }
}

describe('the Disposable base of the editor side', () => {
  it('releases what was registered once, in the order it was registered', () => {
    const released: string[] = [];
    const owner = new Owner();
    owner.register('listener', released);
    owner.register('watcher', released);
    owner.dispose();
    owner.dispose();
    assert.deepEqual(released, ['listener', 'watcher']);
  });

  it('hands back what it registers, and releases at once what is registered after dispose', () => {
    const released: string[] = [];
    const owner = new Owner();
    owner.dispose();
    const late = owner.register('late', released);
    assert.equal(typeof late.dispose, 'function');
    assert.deepEqual(released, ['late']);
  });
});
