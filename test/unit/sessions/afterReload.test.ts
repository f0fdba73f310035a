import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as vscode from 'vscode';
import type { Agent } from '../../../src/core/agents';
import {
  afterReload,
  interruptedMessage,
  parseAfterReloadSetting,
  RESUME_ALL,
  RESUME_ONE,
  SHOW,
  type AfterReloadDependencies,
  type AfterReloadNotifications,
  type AfterReloadSetting,
  type InterruptedAgent,
} from '../../../src/extension/sessions/afterReload';

// What happens to the agents a restore found interrupted: `arbor.sessions.afterReload` decides
// for attended runs, and an unattended run follows its policy.

// The restore hands over real agents, and the editor's own notification API is the one used.
const agentsFit: Agent extends InterruptedAgent ? true : false = true;
const windowFits: typeof vscode.window extends AfterReloadNotifications ? true : false = true;
void agentsFit;
void windowFits;

interface FakeAgent extends InterruptedAgent {
  readonly id: string;
}
const agent = (label: string, unattended = false): FakeAgent => ({ id: label.toLowerCase(), label, run: { policy: { unattended } } });

/** The notification API, answering with `answer` (undefined: dismissed), recording what it was asked. */
function notifications(answer: (actions: string[]) => string | undefined) {
  const shown: Array<{ message: string; actions: string[] }> = [];
  return {
    shown,
    api: {
      showInformationMessage(message: string, ...actions: string[]): Promise<string | undefined> {
        shown.push({ message, actions });
        return Promise.resolve(answer(actions));
      },
    },
  };
}

function deps(setting: AfterReloadSetting, answer: (actions: string[]) => string | undefined = () => undefined, extra: Partial<AfterReloadDependencies<FakeAgent>> = {}) {
  const resumed: string[] = [];
  const revealed: string[] = [];
  const problems: string[] = [];
  const note = notifications(answer);
  const d: AfterReloadDependencies<FakeAgent> = {
    setting,
    resume: (a) => void resumed.push(a.id),
    reveal: (a) => void revealed.push(a.id),
    notifications: note.api,
    onProblem: (a, err) => void problems.push(`${a.id}: ${String(err)}`),
    ...extra,
  };
  return { d, resumed, revealed, problems, shown: note.shown };
}

describe('after a reload: the interrupted agents', () => {
  const lead = agent('Demo lead');
  const watcher = agent('Watcher');
  const nightly = agent('Nightly check', true);

  describe('ask (the default)', () => {
    it('one notification for all of them, with Resume all and Show; Resume all resumes each', async () => {
      const t = deps('ask', (actions) => actions[0]);
      const outcome = await afterReload([lead, watcher], t.d);
      assert.equal(t.shown.length, 1);
      assert.deepEqual(t.shown[0].actions, [RESUME_ALL, SHOW]);
      assert.match(t.shown[0].message, /^2 agents were interrupted when the window closed \("Demo lead" and "Watcher"\)\./);
      assert.deepEqual(t.resumed, ['demo lead', 'watcher']);
      assert.equal(outcome.answer, 'resume');
    });

    it('names the agent when there is one, and offers Resume', async () => {
      const t = deps('ask', (actions) => actions[0]);
      await afterReload([lead], t.d);
      assert.deepEqual(t.shown[0].actions, [RESUME_ONE, SHOW]);
      assert.match(t.shown[0].message, /^"Demo lead" was interrupted when the window closed\. It is stopped where it was/);
      assert.deepEqual(t.resumed, ['demo lead']);
    });

    it('Show reveals the first agent and resumes none', async () => {
      const t = deps('ask', () => SHOW);
      const outcome = await afterReload([lead, watcher], t.d);
      assert.deepEqual(t.revealed, ['demo lead']);
      assert.deepEqual(t.resumed, []);
      assert.equal(outcome.answer, 'show');
    });

    it('dismissing the notification leaves them held', async () => {
      const t = deps('ask', () => undefined);
      const outcome = await afterReload([lead, watcher], t.d);
      assert.deepEqual(t.resumed, []);
      assert.deepEqual(t.revealed, []);
      assert.equal(outcome.answer, 'dismissed');
    });

    it('an agent of an unattended run never waits on the question: it is resumed at once, and only the attended ones are asked about', async () => {
      let resumedWhenAsked: string[] | undefined;
      const t = deps('ask', () => {
        resumedWhenAsked = [...t.resumed];
        return undefined;
      });
      await afterReload([lead, nightly], t.d);
      assert.deepEqual(resumedWhenAsked, ['nightly check'], 'resumed before the question is shown');
      assert.equal(t.shown.length, 1);
      assert.match(t.shown[0].message, /^"Demo lead" was interrupted/);
      assert.doesNotMatch(t.shown[0].message, /Nightly/);
      assert.deepEqual(t.resumed, ['nightly check'], 'the dismissed question leaves the attended one held');
    });

    it('only unattended agents: no notification at all', async () => {
      const t = deps('ask', () => RESUME_ALL);
      await afterReload([nightly], t.d);
      assert.equal(t.shown.length, 0);
      assert.deepEqual(t.resumed, ['nightly check']);
    });

    it('nothing interrupted: no notification', async () => {
      const t = deps('ask', () => RESUME_ALL);
      const outcome = await afterReload([], t.d);
      assert.equal(t.shown.length, 0);
      assert.equal(outcome.answer, undefined);
    });

    it('an agent the person sent a message to (or ended) before answering is not resumed again', async () => {
      const t = deps('ask', (actions) => actions[0], { isStillInterrupted: (a) => a !== lead });
      const outcome = await afterReload([lead, watcher], t.d);
      assert.deepEqual(t.resumed, ['watcher']);
      assert.deepEqual(outcome.resumed, [watcher]);
    });

    it('one failed resume is reported and the others still resume', async () => {
      const t = deps('ask', (actions) => actions[0]);
      const resume = t.d.resume;
      t.d.resume = (a) => {
        if (a === lead) throw new Error('no longer live');
        return resume(a);
      };
      const outcome = await afterReload([lead, watcher], t.d);
      assert.deepEqual(t.resumed, ['watcher']);
      assert.deepEqual(t.problems, ['demo lead: Error: no longer live']);
      assert.deepEqual(outcome.resumed, [watcher]);
    });
  });

  it('resume: every interrupted agent goes on by itself, nobody is asked', async () => {
    const t = deps('resume', () => assert.fail('not asked'));
    const outcome = await afterReload([lead, watcher, nightly], t.d);
    assert.equal(t.shown.length, 0);
    assert.deepEqual(new Set(t.resumed), new Set(['demo lead', 'watcher', 'nightly check']));
    assert.equal(outcome.answer, undefined);
  });

  it('keepStopped: nothing happens, not even to an unattended run', async () => {
    const t = deps('keepStopped', () => assert.fail('not asked'));
    await afterReload([lead, nightly], t.d);
    assert.equal(t.shown.length, 0);
    assert.deepEqual(t.resumed, []);
  });

  it('many agents: the message names the first two and counts the rest', () => {
    const many = ['A', 'B', 'C', 'D', 'E'].map((l) => agent(l));
    assert.match(interruptedMessage(many), /^5 agents were interrupted when the window closed \("A", "B" and 3 more\)\./);
    assert.match(interruptedMessage(many.slice(0, 3)), /\("A", "B" and "C"\)/);
  });

  describe('the setting', () => {
    it('is read as written; unset is ask', () => {
      const problems: string[] = [];
      for (const value of ['ask', 'resume', 'keepStopped'] as const) assert.equal(parseAfterReloadSetting(value, (p) => problems.push(p)), value);
      assert.equal(parseAfterReloadSetting(undefined, (p) => problems.push(p)), 'ask');
      assert.deepEqual(problems, []);
    });

    it('an invalid value falls back to ask, with a message naming the setting', () => {
      for (const value of ['Resume', 'always', 3, true, {}]) {
        const problems: string[] = [];
        assert.equal(parseAfterReloadSetting(value, (p) => problems.push(p)), 'ask', JSON.stringify(value));
        assert.deepEqual(problems, ['arbor.sessions.afterReload must be one of ask, resume, keepStopped; using ask.']);
      }
    });

    it('is contributed in package.json with the same values and default', () => {
      const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as {
        contributes: { configuration: { properties: Record<string, { enum?: string[]; default?: unknown; enumDescriptions?: string[] }> } };
      };
      const setting = manifest.contributes.configuration.properties['arbor.sessions.afterReload'];
      assert.ok(setting, 'contributed');
      assert.deepEqual(setting.enum, ['ask', 'resume', 'keepStopped']);
      assert.equal(setting.default, 'ask');
      assert.equal(setting.enumDescriptions?.length, 3);
    });
  });
});
