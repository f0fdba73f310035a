import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { parseSessionFile, type SessionFileParse } from '../../src/core/sessions/sessionFileParser';
import { makeTempDir, tick, writeSession } from './sessions.fixtures';

// The byte-level reading of one session file: what counts as written, what a torn tail and a
// damaged line cost, and how a file without a usable header is told apart.

describe('session file parser, pinned', () => {
  let dir: string;
  let cleanup: () => void;
  beforeEach(() => ({ dir, cleanup } = makeTempDir()));
  afterEach(() => cleanup());

  const bytesOf = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'));
  const problemOf = (parse: SessionFileParse) => {
    assert.ok(!parse.ok, 'the file is refused');
    return parse.problem;
  };
  const fileOf = (parse: SessionFileParse) => {
    assert.ok(parse.ok, parse.ok ? '' : parse.problem.message);
    return parse.file;
  };
  async function written(): Promise<Buffer> {
    const file = await writeSession(dir, 'parsed', [
      { type: 'turn_start', at: tick(), turn: 1 },
      { type: 'assistant_text', at: tick(), text: 'first' },
      { type: 'assistant_text', at: tick(), text: 'second' },
      { type: 'turn_end', at: tick(), turn: 1, reason: 'completed' },
    ]);
    return fs.readFileSync(file);
  }

  it('an empty file and a file cut inside its header are refused, each with its own message', () => {
    assert.deepEqual(problemOf(parseSessionFile(new Uint8Array())), {
      code: 'SESSION_CORRUPT',
      message: 'The session file is empty: it was created but nothing was written to it.',
    });
    assert.deepEqual(problemOf(parseSessionFile(bytesOf('{"type":"hea'))), {
      code: 'SESSION_CORRUPT',
      message: 'The session file has no complete header line: it was cut off while being created.',
    });
  });

  it('a first line that is not a session header makes the file unloadable, naming line 1', () => {
    const problem = problemOf(parseSessionFile(bytesOf('{"type":"turn_start","turn":1}\n')));
    assert.equal(problem.code, 'SESSION_CORRUPT');
    assert.equal(problem.line, 1);
  });

  it('a whole file loads with its header and every event, all of its bytes complete', async () => {
    const bytes = await written();
    const file = fileOf(parseSessionFile(new Uint8Array(bytes)));
    assert.equal(file.header.id, 'parsed');
    assert.deepEqual(
      file.events.map((e) => e.type),
      ['turn_start', 'assistant_text', 'assistant_text', 'turn_end'],
    );
    assert.equal(file.completeBytes, bytes.length);
    assert.equal(file.tornTailBytes, 0);
    assert.equal(file.damage, undefined);
  });

  it('bytes after the last newline are a torn tail: counted, never parsed, never fatal', async () => {
    const bytes = await written();
    const torn = Buffer.concat([bytes, Buffer.from('{"type":"assis')]);
    const file = fileOf(parseSessionFile(new Uint8Array(torn)));
    assert.equal(file.completeBytes, bytes.length);
    assert.equal(file.tornTailBytes, 14);
    assert.equal(file.events.length, 4);
    assert.equal(file.damage, undefined);
  });

  it('a damaged line ends what loads, and the damage says which line and what it left out', async () => {
    const bytes = await written();
    const lines = bytes.toString('utf8').split('\n');
    // Line 3 (the first assistant text) is replaced by text that is not JSON.
    lines[2] = 'not json';
    const damaged = Buffer.from(lines.join('\n'), 'utf8');
    const file = fileOf(parseSessionFile(new Uint8Array(damaged)));
    assert.deepEqual(
      file.events.map((e) => e.type),
      ['turn_start'],
    );
    assert.ok(file.damage);
    assert.equal(file.damage.line, 3);
    assert.equal(file.damage.droppedLines, 3, 'the damaged line and the two after it');
    const startOfLine3 = Buffer.byteLength(`${lines[0]}\n${lines[1]}\n`, 'utf8');
    assert.equal(file.damage.droppedBytes, damaged.length - startOfLine3);
  });
});
