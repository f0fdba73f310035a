// The browser bridge: lets an integration test, which runs inside the extension host, ask the
// test runner for a real action in the workbench page (a click, keys, a screenshot, a click or
// typing inside a webview). The runner (test/runner/runInHost.mjs) drives the page with
// Playwright and serves these actions over HTTP on a loopback port it passes in
// ARBOR_TEST_UI_URL. Where no browser drives the workbench (desktop runs through
// @vscode/test-electron) the bridge is unavailable and UI-dependent tests skip themselves with
// `ui.requireBrowser(this)`.

/** Key names as Playwright spells them: 'Enter', 'Escape', 'ArrowDown', 'Space', 'Control+P'. */
export type KeyName = string;

export interface UiBridge {
  /** True when a browser drives this workbench and the actions below work. */
  readonly available: boolean;
  /** Why the bridge is unavailable ('' when it is available). */
  readonly unavailableReason: string;
  /** Skips the calling test (with the reason in the report) when the bridge is unavailable. */
  requireBrowser(context: Mocha.Context): void;
  /** Saves a PNG of the whole page as test-results/screenshots/<name>.png; returns its path. */
  screenshot(name: string): Promise<string>;
  /** Clicks the first visible list or tree row (`.monaco-list-row`) containing `rowText`. */
  clickRow(rowText: string): Promise<void>;
  /** Hovers the row containing `rowText` and clicks its action whose aria-label is `actionLabel`. */
  clickInlineAction(rowText: string, actionLabel: string): Promise<void>;
  /** Clicks the button labelled `buttonLabel` on the notification toast whose message contains `messageText`. */
  clickNotificationButton(messageText: string, buttonLabel: string): Promise<void>;
  /** Clicks a button in the title bar of the quick pick or input box on screen, named by its tooltip. */
  clickPromptButton(buttonLabel: string): Promise<void>;
  /** Clicks the status-bar item that shows `text`. */
  clickStatusBarItem(text: string): Promise<void>;
  /**
   * The accessible label of the first visible list or tree row containing `rowText` (for a tree
   * row: its label and description, as the page shows them), or null when no such row is shown.
   */
  rowLabel(rowText: string): Promise<string | null>;
  /**
   * Presses each key in turn: into the open quick pick or input box when one is on screen (as a
   * person would), else into whatever has focus (the editor, a list).
   */
  pressKeys(...keys: KeyName[]): Promise<void>;
  /** Types text, into the open prompt when there is one, else into whatever has focus. */
  typeText(text: string): Promise<void>;
  /** Whether `text` (case-insensitive substring) becomes visible on the page within the timeout. */
  pageHasText(text: string, options?: { timeoutMs?: number }): Promise<boolean>;
  /**
   * Clicks inside a webview's page: `target` is a CSS selector when it starts with `#`, `.` or
   * `[`, else the button whose accessible name is exactly `target`. Waits for it to be enabled.
   */
  webviewClick(target: string, options?: WebviewOptions): Promise<void>;
  /** Clicks the field `selector` inside a webview's page and types `text` key by key. */
  webviewType(selector: string, text: string, options?: WebviewOptions): Promise<void>;
  /** Whether the webview's button (or element, by selector) is enabled right now. */
  webviewIsEnabled(target: string, options?: WebviewOptions): Promise<boolean>;
  /** Whether `text` (case-insensitive substring) becomes visible in a webview within the timeout. */
  webviewHasText(text: string, options?: WebviewOptions & { timeoutMs?: number }): Promise<boolean>;
}

/**
 * Which webview a webview action acts in: by default the only visible one (the action fails
 * when several are visible); with `within`, the first visible one that contains this text.
 */
export interface WebviewOptions {
  within?: string;
}

/** Mocha test objects carry the skip reason under this key so the reporter can print it. */
export const SKIP_REASON = Symbol.for('arbor.test.skipReason');

/** What the runner answers for every action. */
interface ActionReply {
  ok: boolean;
  value?: unknown;
  error?: string;
}

const endpoint = process.env.ARBOR_TEST_UI_URL ?? '';
const unavailableReason = endpoint
  ? ''
  : 'no browser drives this workbench (ARBOR_TEST_UI_URL is unset, as in desktop runs)';

async function act(op: string, args: Record<string, unknown>, timeoutMs = 30_000): Promise<unknown> {
  if (!endpoint) {
    throw new Error(`UI action ${op} is unavailable: ${unavailableReason}. Call ui.requireBrowser(this) first.`);
  }
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ op, args }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const reply = (await response.json()) as ActionReply;
  if (!reply.ok) {
    throw new Error(`UI action ${op}(${JSON.stringify(args)}) failed: ${reply.error ?? `HTTP ${response.status}`}`);
  }
  return reply.value;
}

export const ui: UiBridge = {
  available: endpoint !== '',
  unavailableReason,
  requireBrowser(context) {
    if (endpoint) return;
    const test = context.currentTest ?? context.test;
    if (test) Reflect.set(test, SKIP_REASON, unavailableReason);
    context.skip();
  },
  async screenshot(name) {
    return String(await act('screenshot', { name }));
  },
  async clickRow(rowText) {
    await act('clickRow', { rowText });
  },
  async clickInlineAction(rowText, actionLabel) {
    await act('clickInlineAction', { rowText, actionLabel });
  },
  async clickNotificationButton(messageText, buttonLabel) {
    await act('clickNotificationButton', { messageText, buttonLabel });
  },
  async clickPromptButton(buttonLabel) {
    await act('clickPromptButton', { buttonLabel });
  },
  async clickStatusBarItem(text) {
    await act('clickStatusBarItem', { text });
  },
  async rowLabel(rowText) {
    const label = await act('rowLabel', { rowText });
    return typeof label === 'string' ? label : null;
  },
  async pressKeys(...keys) {
    await act('pressKeys', { keys });
  },
  async typeText(text) {
    await act('typeText', { text });
  },
  async pageHasText(text, options = {}) {
    const timeoutMs = options.timeoutMs ?? 10_000;
    return Boolean(await act('pageHasText', { text, timeoutMs }, timeoutMs + 30_000));
  },
  async webviewClick(target, options = {}) {
    await act('webviewClick', { target, within: options.within });
  },
  async webviewType(selector, text, options = {}) {
    await act('webviewType', { selector, text, within: options.within });
  },
  async webviewIsEnabled(target, options = {}) {
    return Boolean(await act('webviewIsEnabled', { target, within: options.within }));
  },
  async webviewHasText(text, options = {}) {
    const timeoutMs = options.timeoutMs ?? 10_000;
    return Boolean(await act('webviewHasText', { text, timeoutMs, within: options.within }, timeoutMs + 30_000));
  },
};
