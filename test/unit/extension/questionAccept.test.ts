import * as assert from 'assert';
import { APPROVAL_OPTIONS } from '../../../src/core/interaction';
import { acceptOutcome, OTHER_LABEL, pickAnswersFor } from '../../../src/extension/questions/pickAccept';

const options = [{ label: 'Price chart' }, { label: 'Open questions' }, { label: 'Next steps' }];

describe('Enter on a question quick pick (acceptOutcome)', () => {
  it('answers a multi-select question with nothing ticked with none of its options, not with silence', () => {
    assert.deepStrictEqual(acceptOutcome({ multiSelect: true, options }, []), { kind: 'answer', selected: [] });
  });

  it('answers with the ticked options, and asks for the text next when Other… is among them', () => {
    assert.deepStrictEqual(acceptOutcome({ multiSelect: true, options }, ['Price chart', 'Next steps']), { kind: 'answer', selected: ['Price chart', 'Next steps'] });
    assert.deepStrictEqual(acceptOutcome({ multiSelect: true, options }, ['Price chart', OTHER_LABEL]), { kind: 'text', selected: ['Price chart'] });
    assert.deepStrictEqual(acceptOutcome({ multiSelect: false, options }, [OTHER_LABEL]), { kind: 'text', selected: [] });
    assert.deepStrictEqual(acceptOutcome({ options }, ['Open questions']), { kind: 'answer', selected: ['Open questions'] });
  });

  it('takes a text-only question to the free-text box, its only answer, even with nothing ticked', () => {
    assert.deepStrictEqual(acceptOutcome({ multiSelect: true, options: [] }, []), { kind: 'text', selected: [] });
    assert.deepStrictEqual(acceptOutcome({ options: [] }, []), { kind: 'text', selected: [] });
  });

  it('keeps a single-choice pick with nothing highlighted open and says how to answer or dismiss it', () => {
    const outcome = acceptOutcome({ multiSelect: false, options }, []);
    assert.strictEqual(outcome.kind, 'explain');
    assert.match(outcome.kind === 'explain' ? outcome.message : '', /Choose an option .*Escape to dismiss/);
  });

  it('an approval offers no "Other…": its one answer with text is "Deny, and tell it why"', () => {
    const approval = pickAnswersFor('approval');
    assert.strictEqual(approval.other, false);
    const approvalOptions = Object.values(APPROVAL_OPTIONS).map((label) => ({ label }));
    assert.deepStrictEqual(acceptOutcome({ options: approvalOptions }, [APPROVAL_OPTIONS.denyWhy], approval), { kind: 'text', selected: [APPROVAL_OPTIONS.denyWhy] });
    assert.deepStrictEqual(acceptOutcome({ options: approvalOptions }, [APPROVAL_OPTIONS.deny], approval), { kind: 'answer', selected: [APPROVAL_OPTIONS.deny] });
    assert.deepStrictEqual(acceptOutcome({ options: approvalOptions }, [OTHER_LABEL], approval).kind, 'explain', 'typed text is never an approval');
    assert.strictEqual(acceptOutcome({ options: approvalOptions }, [], approval).kind, 'explain');
    assert.deepStrictEqual(pickAnswersFor('clarify'), { other: true });
    assert.deepStrictEqual(pickAnswersFor('plan-approval'), { other: true });
  });
});
