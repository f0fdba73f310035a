import * as assert from 'assert';
import { isArborError } from '../../../src/core/errors';
import { ScriptedModel, parseScript } from '../../../src/core/models/scriptedModel';
import type { ModelChunk, ModelRequest } from '../../../src/core/models/types';

async function textFor(model: ScriptedModel, agentLabel: string): Promise<string> {
  const chunks: ModelChunk[] = [];
  const request: ModelRequest = { agentId: 'a#1', agentLabel, call: 1, turn: 1, step: 1, system: '', messages: [{ role: 'user', content: 'hi' }], tools: [], signal: new AbortController().signal };
  for await (const chunk of model.stream(request)) chunks.push(chunk);
  return chunks.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('');
}

const PROTOTYPE_NAMES = ['constructor', 'toString', 'valueOf', 'hasOwnProperty', '__proto__', '__defineGetter__', 'isPrototypeOf'];

describe('scripted model labels', () => {
  it('any agent label falls back to the * entry, including names of Object.prototype', async () => {
    const model = new ScriptedModel({ version: 1, agents: { '*': { turns: [[{ text: 'any agent' }]] } } });
    for (const label of PROTOTYPE_NAMES) assert.strictEqual(await textFor(model, label), 'any agent', label);
  });

  it('a label with no entry and no * entry is answered, not thrown', async () => {
    const model = new ScriptedModel({ version: 1, agents: {} });
    for (const label of PROTOTYPE_NAMES) assert.match(await textFor(model, label), /No script entry/, label);
  });

  it('a script may name an agent after an Object.prototype property, __proto__ included', async () => {
    const agents = Object.fromEntries(PROTOTYPE_NAMES.map((label) => [label, { turns: [[{ text: `I am ${label}` }]] }]));
    const text = JSON.stringify({ version: 1, agents: { ...agents, '*': { turns: [[{ text: 'star' }]] } } });
    assert.ok(text.includes('"__proto__"'));
    const model = new ScriptedModel(text);
    for (const label of PROTOTYPE_NAMES) assert.strictEqual(await textFor(model, label), `I am ${label}`, label);
    assert.strictEqual(await textFor(model, 'someone else'), 'star');
  });

  it('an invalid entry under __proto__ is reported, not silently dropped', () => {
    assert.throws(
      () => parseScript('{"version":1,"agents":{"__proto__":{"turns":"not a list"}}}'),
      (e: unknown) => isArborError(e, 'SCRIPT_INVALID') && /__proto__/.test(e.message),
    );
  });
});
