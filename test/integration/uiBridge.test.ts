import * as assert from 'assert';
import * as vscode from 'vscode';
import { ui } from './ui';

// The bridge is what later suites rely on to click and type like a user; these tests prove
// each action reaches the real workbench, using VS Code's own quick pick and input box.

/** Opens a quick pick, lets `answer` act on it through the browser, and returns what it resolved to. */
async function answerQuickPick(
  items: vscode.QuickPickItem[],
  answer: (pick: vscode.QuickPick<vscode.QuickPickItem>) => Promise<void>,
  options: { canSelectMany?: boolean } = {},
): Promise<{ picked: string[]; buttons: string[] }> {
  const pick = vscode.window.createQuickPick();
  pick.items = items;
  pick.canSelectMany = options.canSelectMany ?? false;
  // Earlier suites' agents may still open editors or notifications: focus moving must not close it.
  pick.ignoreFocusOut = true;
  const buttons: string[] = [];
  const picked = new Promise<string[]>((resolve) => {
    pick.onDidAccept(() => resolve(pick.selectedItems.map((item) => item.label)));
    pick.onDidHide(() => resolve(pick.selectedItems.map((item) => item.label)));
    pick.onDidTriggerItemButton(({ item, button }) => {
      buttons.push(`${item.label}:${button.tooltip}`);
      pick.hide();
    });
  });
  pick.show();
  try {
    assert.ok(await ui.pageHasText(items[0].label), 'the quick pick did not appear');
    await answer(pick);
    return { picked: await picked, buttons };
  } finally {
    pick.dispose();
  }
}

describe('Browser bridge', () => {
  it('reports text that is not on the page as absent', async function () {
    ui.requireBrowser(this);
    assert.strictEqual(await ui.pageHasText('no such text on this page 7f3a', { timeoutMs: 500 }), false);
  });

  it('answers a quick pick with the keyboard', async function () {
    ui.requireBrowser(this);
    const { picked } = await answerQuickPick([{ label: 'alpha' }, { label: 'beta' }, { label: 'gamma' }], () =>
      ui.pressKeys('ArrowDown', 'Enter'),
    );
    assert.deepStrictEqual(picked, ['beta']);
  });

  it('filters a multi-select quick pick by typing and toggles items with Space', async function () {
    ui.requireBrowser(this);
    const items = [{ label: 'apple' }, { label: 'banana' }, { label: 'cherry' }];
    const { picked } = await answerQuickPick(
      items,
      async () => {
        await ui.typeText('cher');
        await ui.pressKeys('ArrowDown', 'Space', 'Enter');
      },
      { canSelectMany: true },
    );
    assert.deepStrictEqual(picked, ['cherry']);
  });

  it('clicks a row of a list', async function () {
    ui.requireBrowser(this);
    const { picked } = await answerQuickPick([{ label: 'north' }, { label: 'south' }, { label: 'west' }], () =>
      ui.clickRow('west'),
    );
    assert.deepStrictEqual(picked, ['west']);
  });

  it("clicks a row's inline action by its label", async function () {
    ui.requireBrowser(this);
    const remove: vscode.QuickInputButton = { iconPath: new vscode.ThemeIcon('trash'), tooltip: 'Remove Item' };
    const { buttons } = await answerQuickPick(
      [{ label: 'first', buttons: [remove] }, { label: 'second', buttons: [remove] }],
      () => ui.clickInlineAction('second', 'Remove Item'),
    );
    assert.deepStrictEqual(buttons, ['second:Remove Item']);
  });

  it('types into an input box', async function () {
    ui.requireBrowser(this);
    const answer = vscode.window.showInputBox({ prompt: 'Name the agent' });
    assert.ok(await ui.pageHasText('Name the agent'), 'the input box did not appear');
    await ui.typeText('scout');
    await ui.pressKeys('Enter');
    assert.strictEqual(await answer, 'scout');
  });

  it('saves a screenshot under test-results/screenshots', async function () {
    ui.requireBrowser(this);
    const file = await ui.screenshot('bridge-check');
    assert.match(file, /test-results\/screenshots\/bridge-check\.png$/);
  });
});

describe('Browser bridge inside a webview', () => {
  it('types into a field, reads a button state, clicks a button and sees the text it wrote', async function () {
    ui.requireBrowser(this);
    const panel = vscode.window.createWebviewPanel('arbor.bridgeCheck', 'Bridge check', vscode.ViewColumn.Active, { enableScripts: true });
    try {
      const nonce = Math.random().toString(36).slice(2);
      panel.webview.html = `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'nonce-${nonce}'"></head>
<body><input id="name" aria-label="Name"><button id="go">Greet</button><button disabled>Off</button><p id="out"></p>
<script nonce="${nonce}">
  const api = acquireVsCodeApi();
  document.getElementById('go').addEventListener('click', () => {
    const name = document.getElementById('name').value;
    document.getElementById('out').textContent = 'Hello ' + name;
    api.postMessage(name);
  });
</script></body></html>`;
      const received = new Promise<unknown>((resolve) => panel.webview.onDidReceiveMessage(resolve));
      await ui.webviewType('#name', 'scout');
      assert.strictEqual(await ui.webviewIsEnabled('Off'), false);
      assert.strictEqual(await ui.webviewIsEnabled('Greet'), true);
      await ui.webviewClick('Greet');
      assert.strictEqual(await received, 'scout', 'the click reached the page and the page reached the host');
      assert.ok(await ui.webviewHasText('Hello scout'));
      assert.ok(await ui.webviewHasText('hello SCOUT', { within: 'Greet' }), 'matches ignore case and can name the webview by its text');
      assert.strictEqual(await ui.webviewHasText('no such text in this view 7f3a', { timeoutMs: 500 }), false);
    } finally {
      panel.dispose();
    }
  });
});
