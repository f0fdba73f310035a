import * as assert from 'assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { programFoldersUnderTmp } from '../../../src/core/external/acpConnection';
import { bwrapArgs } from '../../../src/core/sandbox/bwrapArgs';

/**
 * An external agent installed or checked out under /tmp (a CI runner's clone, an unpacked
 * release) starts sandboxed: the sandbox's own fresh /tmp would otherwise hide its program.
 */
describe('an external agent whose program lives under /tmp, in the sandbox', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync('/tmp/arbor-program-');
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.writeFileSync(path.join(dir, 'bin', 'agent.mjs'), '');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('shows the first folder below /tmp of each existing absolute path, once, and nothing else', () => {
    const real = fs.realpathSync(dir);
    assert.deepStrictEqual(programFoldersUnderTmp([process.execPath, path.join(dir, 'bin', 'agent.mjs'), path.join(dir, 'bin'), '--acp', '/tmp/no-such-folder/x', 'relative/path']), [real]);
  });

  it('binds those folders read-only right after the fresh /tmp, before the run folder and the masks', () => {
    const args = bwrapArgs({ writable: [`${dir}/work`], programs: [dir], denyRead: [{ path: `${dir}/secret`, folder: false }], cwd: `${dir}/work`, disableUserns: false });
    const at = (flag: string, p: string) => args.findIndex((a, i) => a === flag && args[i + 1] === p);
    const tmp = at('--tmpfs', '/tmp');
    assert.ok(tmp >= 0 && at('--ro-bind', dir) === tmp + 2, 'the program folder comes right after /tmp');
    assert.ok(at('--bind', `${dir}/work`) > at('--ro-bind', dir), 'the run folder is bound over it, writable');
    assert.ok(at('--ro-bind', '/dev/null') > at('--ro-bind', dir), 'and a denied file inside it is still masked');
  });
});
