// The chat webview's HTML: a strict Content-Security-Policy (no remote
// resources, no inline script but the nonce'd bundle), theme colours from
// VS Code's CSS variables (media/chat.css). Pure.
import { randomBytes } from 'node:crypto';

export interface HtmlInputs {
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
}

export function chatHtml(inputs: HtmlInputs): string {
  const csp = contentSecurityPolicy(inputs.cspSource, inputs.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeAttr(inputs.styleUri)}">
<title>agentls</title>
</head>
<body>
<header class="bar">
  <label class="visually-hidden" for="session">Session</label>
  <select id="session" title="Continue an earlier session, or start a new one"></select>
  <span id="usage" class="usage" aria-live="polite"></span>
</header>
<div id="server" class="server" role="status" hidden></div>
<main id="log" class="log" role="log" aria-live="polite" aria-label="agentls conversation"></main>
<div id="activity" class="activity" role="status" aria-live="polite" hidden><span class="icon" aria-hidden="true"></span><span class="text"></span><span class="elapsed"></span></div>
<footer class="composer">
  <ul id="suggest" class="suggest" role="listbox" aria-label="Prompt commands" hidden></ul>
  <label class="visually-hidden" for="prompt">Ask agentls</label>
  <div id="attachments" class="attachments" aria-label="Images to send" hidden></div>
  <textarea id="prompt" rows="3" placeholder="Ask agentls… (Enter to send, Shift+Enter for a new line, / for a prompt command; paste an image to attach it)"></textarea>
  <div class="actions">
    <input id="image-file" type="file" accept="image/png,image/jpeg,image/gif,image/webp" multiple hidden>
    <button id="attach" class="secondary attach" type="button" title="Attach an image (PNG, JPEG, GIF or WebP)">Attach image…</button>
    <button id="cancel" class="secondary" type="button" hidden>Cancel run</button>
    <button id="send" type="button" disabled>Ask</button>
  </div>
</footer>
<script nonce="${escapeAttr(inputs.nonce)}" src="${escapeAttr(inputs.scriptUri)}"></script>
</body>
</html>`;
}

export function escapeAttr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A fresh nonce per page: the only script that may run is ours. */
export function newNonce(): string {
  return randomBytes(18).toString('base64url');
}
