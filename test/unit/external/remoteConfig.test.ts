import * as assert from 'assert';
import { commandLineOf, isRemoteAgent, parseExternalAgents } from '../../../src/core/external';

/** arbor.externalAgents entries with a `url` (an agent served over the network) instead of a `command`. */
describe('arbor.externalAgents entries served at a url', () => {
  it('keeps ws://, wss://, http:// and https:// entries as they are', () => {
    const urls = ['ws://127.0.0.1:8123/', 'wss://agents.example.com/acp', 'http://localhost:9000/acp', 'https://box.example.org/agent'];
    const parsed = parseExternalAgents(urls.map((url, i) => ({ name: `Remote ${i}`, url })));
    assert.deepStrictEqual(parsed.problems, []);
    assert.deepStrictEqual(parsed.agents, urls.map((url, i) => ({ name: `Remote ${i}`, url })));
    assert.ok(parsed.agents.every(isRemoteAgent));
    assert.strictEqual(commandLineOf(parsed.agents[1]), 'wss://agents.example.com/acp');
  });

  it('refuses each bad entry with why, and keeps the good ones', () => {
    const parsed = parseExternalAgents([
      { name: 'Both', url: 'ws://127.0.0.1:1/', command: 'opencode' },
      { name: 'Neither', args: ['acp'] },
      { name: 'Ftp', url: 'ftp://example.com/agent' },
      { name: 'File', url: 'file:///tmp/agent.sock' },
      { name: 'Words', url: 'my server' },
      { name: 'Userinfo', url: 'wss://me:hunter2@example.com/acp' },
      { name: 'WithArgs', url: 'ws://127.0.0.1:1/', args: ['--acp'], secretEnv: ['KEY'] },
      { name: 'Good', url: 'wss://example.com/acp' },
      { name: 'Local', command: 'opencode', args: ['acp'] },
    ]);
    assert.deepStrictEqual(parsed.agents.map((a) => a.name), ['Good', 'Local']);
    const [both, neither, ftp, file, words, userinfo, withArgs] = parsed.problems;
    assert.strictEqual(parsed.problems.length, 7, parsed.problems.join('\n'));
    assert.match(both, /"Both" is ignored: entry: give "command" \(a program to start\) or "url" \(where it is served\)/);
    assert.match(neither, /"Neither" is ignored: entry: give "command" .* or "url"/);
    const scheme = /url: a ws:\/\/, wss:\/\/, http:\/\/ or https:\/\/ address without user or password/;
    for (const [problem, name] of [[ftp, 'Ftp'], [file, 'File'], [words, 'Words'], [userinfo, 'Userinfo']]) {
      assert.match(problem, new RegExp(`"${name}" is ignored: ${scheme.source}`));
    }
    assert.ok(!userinfo.includes('hunter2'), 'the password in the address is not repeated');
    assert.match(withArgs, /"WithArgs" is ignored: .*Unrecognized keys: "args", "secretEnv"/);
  });
});
