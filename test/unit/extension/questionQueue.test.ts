import '../../support/vscodeStub';
import * as assert from 'node:assert/strict';
import type { InteractionPrompt } from '../../../src/core/interaction';
import type { Answer } from '../../../src/core/sessions/types';
import { LATER_TOOLTIP } from '../../../src/extension/questions/laterButton';
import { QuestionPicker } from '../../../src/extension/questions/questionPicker';
import { forged } from '../../support/forged';
import { until } from '../../support/until';
import { vscodeStub } from '../../support/vscodeStub';

type Listener<T> = (value: T) => void;
class Channel<T> {
  private listeners: Array<Listener<T>> = [];
  readonly on = (listener: Listener<T>) => {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  };
  fire(value: T): void {
    for (const l of [...this.listeners]) l(value);
  }
}

/** Just enough of a quick pick: what the prompt sets, its events, and whether it is on screen. */
class FakePick {
  title = '';
  placeholder = '';
  items: Array<{ label: string }> = [];
  activeItems: Array<{ label: string }> = [];
  selectedItems: Array<{ label: string }> = [];
  buttons: Array<{ tooltip?: string }> = [];
  canSelectMany = false;
  visible = false;
  private readonly accept = new Channel<void>();
  private readonly hidden = new Channel<void>();
  private readonly button = new Channel<{ tooltip?: string }>();
  readonly onDidAccept = this.accept.on;
  readonly onDidHide = this.hidden.on;
  readonly onDidTriggerButton = this.button.on;
  readonly onDidChangeValue = () => ({ dispose: () => undefined });
  readonly onDidChangeSelection = () => ({ dispose: () => undefined });
  show(): void {
    this.visible = true;
  }
  hide(): void {
    if (!this.visible) return;
    this.visible = false;
    this.hidden.fire();
  }
  dispose(): void {
    this.hide();
  }
  choose(label: string): void {
    this.activeItems = this.items.filter((i) => i.label === label);
    this.accept.fire();
  }
  press(tooltip: string): void {
    const b = this.buttons.find((x) => x.tooltip === tooltip);
    assert.ok(b, `the prompt offers ${tooltip}`);
    this.button.fire(b);
  }
}

const picks: FakePick[] = [];
Object.assign(vscodeStub.window, {
  createQuickPick: () => {
    const pick = new FakePick();
    picks.push(pick);
    return pick;
  },
});

const log = forged<ConstructorParameters<typeof QuestionPicker>[0]>({ info: () => undefined, warn: () => undefined });
let n = 0;
function prompt(label: string): InteractionPrompt {
  n++;
  return { id: `ask-${n}`, agent: { id: label, label }, intent: 'clarify', questions: [{ id: 'q', question: `${label}: which?`, options: [{ label: 'Yes' }, { label: 'No' }] }], signal: new AbortController().signal };
}
const onScreen = (): FakePick[] => picks.filter((p) => p.visible);

describe('the question prompts: what opens by itself, and Later', () => {
  beforeEach(() => picks.splice(0));

  it('with auto, only the oldest prompt opens; the next opens when it is answered', async () => {
    const picker = new QuestionPicker(log, undefined, () => false);
    const first = picker.ask(prompt('First'));
    const second = picker.ask(prompt('Second'));
    await until(() => onScreen().length === 1, 'the first prompt to open');
    assert.match(onScreen()[0].title, /First asks/);
    onScreen()[0].choose('Yes');
    assert.deepEqual(await first, [{ id: 'q', selected: ['Yes'] }] satisfies Answer[]);
    await until(() => onScreen().length === 1 && /Second/.test(onScreen()[0].title), 'the second prompt to open next');
    onScreen()[0].choose('No');
    assert.deepEqual(await second, [{ id: 'q', selected: ['No'] }]);
    picker.dispose();
  });

  it('Later puts the prompt back unanswered: nothing opens by itself in its place, and opening it again answers it', async () => {
    const picker = new QuestionPicker(log, undefined, () => false);
    let settled = false;
    const first = picker.ask(prompt('First'));
    void first.finally(() => (settled = true));
    const second = picker.ask(prompt('Second'));
    await until(() => onScreen().length === 1, 'the first prompt to open');
    const firstId = picker.shownId!;
    onScreen()[0].press(LATER_TOOLTIP);
    assert.equal(onScreen().length, 0, 'the prompt is off the screen');
    assert.equal(picker.shownId, undefined);
    picker.pump();
    assert.equal(onScreen().length, 0, 'the newer prompt does not open by itself while the older one waits');
    await new Promise((r) => setImmediate(r));
    assert.equal(settled, false, 'the agent still waits for its answer');
    assert.equal(picker.open(firstId), true);
    await until(() => onScreen().length === 1, 'the prompt to open again');
    assert.match(onScreen()[0].title, /First asks/);
    onScreen()[0].choose('No');
    assert.deepEqual(await first, [{ id: 'q', selected: ['No'] }]);
    await until(() => onScreen().length === 1 && /Second/.test(onScreen()[0].title), 'the next prompt to open once the older one is settled');
    onScreen()[0].choose('Yes');
    await second;
    picker.dispose();
  });

  it('opening another prompt puts the one in front back instead of dismissing it', async () => {
    const picker = new QuestionPicker(log, undefined, () => false);
    const first = picker.ask(prompt('First'));
    const second = picker.ask(prompt('Second'));
    await until(() => onScreen().length === 1, 'the first prompt to open');
    const firstId = picker.shownId!;
    assert.equal(picker.open(`ask-${n}`), true);
    await until(() => onScreen().length === 1 && /Second/.test(onScreen()[0].title), 'the second prompt to be in front');
    onScreen()[0].choose('Yes');
    await second;
    assert.notEqual(picker.shownId, firstId, 'the put-back prompt does not come back by itself');
    assert.equal(picker.open(firstId), true);
    await until(() => onScreen().length === 1 && /First/.test(onScreen()[0].title), 'the first prompt again');
    onScreen()[0].choose('Yes');
    assert.deepEqual(await first, [{ id: 'q', selected: ['Yes'] }]);
    picker.dispose();
  });

  it('with manual, nothing opens by itself; a prompt opens when asked for, and auto opens the oldest', async () => {
    let manual = true;
    const picker = new QuestionPicker(log, undefined, () => manual);
    const first = picker.ask(prompt('First'));
    const second = picker.ask(prompt('Second'));
    await new Promise((r) => setImmediate(r));
    assert.equal(picks.length, 0, 'no prompt opened');
    assert.equal(picker.open(`ask-${n}`), true);
    await until(() => onScreen().length === 1, 'the asked-for prompt to open');
    assert.match(onScreen()[0].title, /Second asks/);
    onScreen()[0].choose('Yes');
    await second;
    await new Promise((r) => setImmediate(r));
    assert.equal(onScreen().length, 0, 'answering one opens no other');
    manual = false;
    picker.pump();
    await until(() => onScreen().length === 1 && /First/.test(onScreen()[0].title), 'auto to open the oldest');
    onScreen()[0].choose('No');
    await first;
    picker.dispose();
  });
});
