import * as assert from 'assert';
import type { InteractionPrompt } from '../../../src/core/interaction';
import type { ModelScript } from '../../../src/core/models/scriptedModel';
import { until } from '../../support/runtimeFixture';
import { closeWindow, openTestWindow, sessionsFolderPerTest } from '../../support/windows';

// A question open when the window went away is asked again after the reload, and it keeps the
// time it was first asked: Waiting for you lists it among the others by how long it has waited,
// not as the newest thing there.

const script: ModelScript = {
  version: 1,
  agents: {
    Asker: { turns: [[{ toolCalls: [{ name: 'ask_user_question', arguments: { questions: [{ id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] }] } }] }, { text: 'asked' }]] },
  },
};

/** A person who sees every prompt and answers none. */
const silent = { ask: (_p: InteractionPrompt) => new Promise<never>(() => undefined) };

function openWindow(dir: string) {
  const window = openTestWindow(dir, script);
  window.runtime.interaction.registerProvider(silent);
  return window;
}

describe('restore: a question asked again keeps when it was first asked', () => {
  const folder = sessionsFolderPerTest('arbor-waiting-since-');
  const { windows } = folder;

  for (const how of ['the live-state records (restoreLive)', 'Resume from History (resumeRoot)'] as const) {
    it(`after a reload through ${how}, and after a second one`, async () => {
      const first = openWindow(folder.dir);
      windows.open(first);
      const asker = first.runtime.startRoot({ prompt: 'ask', label: 'Asker' });
      await until(() => first.runtime.interaction.pending().length === 1, 'the question asked');
      const question = asker.log.events.find((e) => e.type === 'question');
      assert.ok(question, 'the question is in the session');
      const askedAt = Date.parse(question.at);
      await closeWindow(first);
      windows.forget();

      // Twice, each a moment later: asked again, it would be dated from then.
      for (let reload = 1; reload <= 2; reload++) {
        const before = Date.now();
        await until(() => Date.now() > before + 5, 'a moment to pass');
        const next = openWindow(folder.dir);
        windows.open(next);
        if (how === 'the live-state records (restoreLive)') {
          const report = await next.runtime.restoreLive();
          assert.deepStrictEqual(report.problems, []);
        } else {
          await next.runtime.resumeRoot(asker.id);
        }
        await until(() => next.runtime.interaction.pending().length === 1, `the question asked again (reload ${reload})`);
        assert.strictEqual(next.runtime.interaction.pending()[0].openedAt, askedAt, `dated from the first time it was asked (reload ${reload})`);
        await closeWindow(next);
        windows.forget();
      }
    });
  }
});
