// Runs inside Arbor's webviews. The host waits for 'ready' before it posts any state, so a
// message sent while the page is still loading is never lost.

interface VsCodeWebviewApi {
  postMessage(message: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeWebviewApi;

/** Messages this script sends to the extension host. */
export type WebviewToHostMessage = { type: 'ready' };

const vscode = acquireVsCodeApi();

function post(message: WebviewToHostMessage): void {
  vscode.postMessage(message);
}

if (document.readyState === 'loading') {
  document.addEventListener('DOMContentLoaded', () => post({ type: 'ready' }), { once: true });
} else {
  post({ type: 'ready' });
}
