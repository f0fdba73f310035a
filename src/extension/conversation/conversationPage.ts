import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'media')] };
}

/**
 * The view's page: no agent text in it (the script renders everything it is sent with DOM
 * APIs), scripts only with this page's nonce, styles only from the extension's media folder.
 */
export function pageHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = randomBytes(16).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'dist', 'webview.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'conversation.css'));
  const csp = [`default-src 'none'`, `style-src ${webview.cspSource}`, `script-src 'nonce-${nonce}'`].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}">
<title>Conversation</title>
</head>
<body>
<header class="header">
  <div class="title"><span id="agent-label" class="agent-label"></span><span id="agent-kind" class="kind"></span></div>
  <div id="state" class="state" role="status" aria-live="polite"></div>
</header>
<section id="plan" class="plan" aria-label="Plan" aria-live="polite" hidden></section>
<main id="conversation" class="conversation" aria-label="Conversation"><p class="empty">Loading the conversation…</p></main>
<section id="queue" class="queue" aria-label="Queued messages" hidden></section>
<footer class="composer">
  <div id="error" class="error" role="alert" hidden></div>
  <textarea id="message" rows="3" aria-label="Message to the agent" placeholder="Message the agent (Enter to send, Shift+Enter for a new line)"></textarea>
  <div class="composer-row">
    <p id="hint" class="hint"></p>
    <div class="buttons">
      <button id="stop" class="secondary" type="button" title="Stop the current turn; queued messages wait for your next Send">Stop</button>
      <button id="send" type="button" title="Queue this message for the agent">Send</button>
    </div>
  </div>
</footer>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}
