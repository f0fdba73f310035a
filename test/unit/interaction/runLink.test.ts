import * as assert from 'assert';
import fc from 'fast-check';
import { URI } from 'vscode-uri';
import { isArborError } from '../../../src/core/errors';
import { parsePublicRunRequestFrom, parseRunLinkQuery, RUN_LINK_PARAMETERS } from '../../../src/core/interaction';
import { INTERNAL_KEY_SPELLINGS } from '../../../src/core/interaction/trustBoundary';

/** What the URI handler does with a link VS Code hands it (uri.query is decoded by VS Code's URI). */
function requestFrom(link: string) {
  const uri = URI.parse(link);
  return parsePublicRunRequestFrom('uri', parseRunLinkQuery(uri.query).params);
}

/** Characters that a second decode changes, mixed with ordinary and non-ASCII text. */
const tricky = fc.constantFrom('&', '=', '+', '%', '%2', '%41', '%25', '%26', '%zz', ' ', '#', '?', '/', ':', '@', ';', ',', '!', "'", '(', ')', '*', '~', 'é', '日', '😀', '\n', 'a', 'Z', '0');
const text = (maxLength: number) =>
  fc.oneof(fc.string({ unit: tricky, minLength: 1, maxLength }), fc.string({ unit: 'grapheme', minLength: 1, maxLength }), fc.string({ minLength: 1, maxLength }));
const KNOWN = [...RUN_LINK_PARAMETERS, ...Object.keys(INTERNAL_KEY_SPELLINGS)];
/** The one thing a value cannot hold: an '&' that starts a parameter name the link reader knows. */
const readable = (s: string) => /\S/.test(s) && !KNOWN.some((k) => s.includes(`&${k}=`));

describe('run links', () => {
  it('any prompt and label round-trip through a link encoded with encodeURIComponent (property)', () => {
    fc.assert(
      fc.property(text(80), fc.option(text(40), { nil: undefined }), (prompt, label) => {
        fc.pre(readable(prompt) && (label === undefined || readable(label)));
        const link = `vscode://arbor.arbor/run?prompt=${encodeURIComponent(prompt)}${label === undefined ? '' : `&label=${encodeURIComponent(label)}`}`;
        const request = requestFrom(link);
        assert.strictEqual(request.prompt, prompt);
        assert.strictEqual(request.label, label);
      }),
      { numRuns: 2000 },
    );
  });

  it("any prompt and label round-trip through a link written by VS Code's own URI encoding (property)", () => {
    fc.assert(
      fc.property(text(80), text(40), fc.boolean(), (prompt, label, labelFirst) => {
        fc.pre(readable(prompt) && readable(label));
        const query = labelFirst ? `label=${label}&prompt=${prompt}` : `prompt=${prompt}&label=${label}`;
        const link = URI.from({ scheme: 'vscode', authority: 'arbor.arbor', path: '/run', query }).toString();
        const request = requestFrom(link);
        assert.strictEqual(request.prompt, prompt);
        assert.strictEqual(request.label, label);
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps &, =, + and %XX as written', () => {
    const prompt = 'Fix a&b=c, 1+1 and 100%25 of %41 tests';
    const link = `vscode://arbor.arbor/run?prompt=${encodeURIComponent(prompt)}&label=${encodeURIComponent('x+y&z=1')}`;
    assert.deepStrictEqual({ ...requestFrom(link) }, { prompt, label: 'x+y&z=1' });
  });

  it('still finds and strips the internal keys a link tries to set, and drops unknown leading parameters', () => {
    const stripped: string[][] = [];
    const { params, ignored } = parseRunLinkQuery('utm=1&prompt=Tidy the README&label=Tidy&interactionMode=autonomous&nonInteractive=true&channel_name=github');
    assert.strictEqual(ignored, 'utm=1');
    const request = parsePublicRunRequestFrom('uri', params, { onStripped: (keys) => stripped.push([...keys]) });
    assert.deepStrictEqual({ ...request }, { prompt: 'Tidy the README', label: 'Tidy' });
    assert.deepStrictEqual(stripped, [['interactionMode', 'nonInteractive', 'channelName']]);
  });

  it('a parameter given twice is INPUT_INVALID, never a silent choice', () => {
    assert.throws(() => parseRunLinkQuery('prompt=a&prompt=b'), (e: unknown) => isArborError(e, 'INPUT_INVALID'));
  });
});
