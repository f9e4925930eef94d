// The chat view's script (runs in the webview, bundled for the browser). It
// only draws the model the extension sends and posts back what the person did.
import type { FromWebview, ImageAttachment, ToWebview, WebviewModel } from '../chat/messages';
import { completed, matching } from '../commands/promptCommandItems';
import { el, ItemList } from './render';

interface VsCodeApi {
  postMessage(message: FromWebview): void;
  getState(): { draft?: string } | undefined;
  setState(state: { draft?: string }): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const post = (message: FromWebview): void => vscode.postMessage(message);

const log = byId('log');
const prompt = byId('prompt') as HTMLTextAreaElement;
const send = byId('send') as HTMLButtonElement;
const cancel = byId('cancel') as HTMLButtonElement;
const session = byId('session') as HTMLSelectElement;
const usage = byId('usage');
const server = byId('server');
const activity = byId('activity');
const suggest = byId('suggest');
const attachments = byId('attachments');
const attach = byId('attach') as HTMLButtonElement;
const imageFile = byId('image-file') as HTMLInputElement;
const items = new ItemList(log, post);
let model: WebviewModel | undefined;
// Images pasted or attached, sent with the next ask (the server checks what they are).
let images: ImageAttachment[] = [];

prompt.value = vscode.getState()?.draft ?? '';

function byId(id: string): HTMLElement {
  const found = document.getElementById(id);
  if (!found) {
    throw new Error(`chat view: no #${id}`);
  }
  return found;
}

function ask(): void {
  const text = prompt.value.trim();
  // While the server starts, the ask waits for it in the extension. While a run goes on
  // in this session, what is written goes to it: the model reads it at its next turn.
  if (text === '' || model === undefined) {
    return;
  }
  prompt.value = '';
  vscode.setState({ draft: '' });
  if (model.running) {
    post({ type: 'steer', prompt: text }); // the images stay for the next ask
    return;
  }
  post(images.length ? { type: 'ask', prompt: text, images } : { type: 'ask', prompt: text });
  images = [];
  drawAttachments();
}

/** A file as an attachment: its bytes as base64, read in the webview. */
function readImage(file: File): Promise<ImageAttachment> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve({ name: file.name || 'pasted image', mimeType: file.type, data: url.slice(url.indexOf(',') + 1) });
    };
    reader.onerror = () => reject(reader.error ?? new Error('unreadable'));
    reader.readAsDataURL(file);
  });
}

async function addImages(files: Iterable<File>): Promise<void> {
  for (const file of files) {
    if (file.type.startsWith('image/')) {
      images.push(await readImage(file));
    }
  }
  drawAttachments();
}

function drawAttachments(): void {
  attachments.hidden = images.length === 0;
  attachments.replaceChildren(
    ...images.map((image, index) => {
      const chip = el('span', 'attachment');
      const preview = el('img');
      preview.src = `data:${image.mimeType};base64,${image.data}`;
      preview.alt = '';
      const remove = el('button', 'secondary', '×');
      remove.type = 'button';
      remove.title = `Remove ${image.name}`;
      remove.addEventListener('click', () => {
        images.splice(index, 1);
        drawAttachments();
      });
      chip.append(preview, el('span', 'name', image.name), remove);
      return chip;
    }),
  );
}

prompt.addEventListener('keydown', (event) => {
  const name = event.key === 'Tab' && !event.shiftKey ? completed(prompt.value, model?.commands ?? []) : null;
  if (name !== null) {
    event.preventDefault();
    prompt.value = name;
    drawSuggestions();
  } else if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    ask();
  } else if (event.key === 'Escape' && model?.running) {
    event.preventDefault();
    post({ type: 'cancel' });
  }
});
prompt.addEventListener('input', () => {
  vscode.setState({ draft: prompt.value });
  drawSuggestions();
});
// The list is asked for again each time the prompt is entered: a command file added meanwhile shows.
prompt.addEventListener('focus', () => post({ type: 'refreshCommands' }));

/** Under the prompt while its text is `/` and the start of a name: the commands it may name. */
function drawSuggestions(): void {
  const found = matching(prompt.value, model?.commands ?? []);
  suggest.hidden = found.length === 0;
  suggest.replaceChildren(
    ...found.map((command) => {
      const item = document.createElement('li');
      item.setAttribute('role', 'option');
      const name = document.createElement('span');
      name.className = 'name';
      name.textContent = `/${command.name}`;
      item.append(name, ` ${command.hint} — ${command.description}`);
      item.addEventListener('mousedown', (event) => {
        event.preventDefault(); // the prompt keeps the focus
        prompt.value = `/${command.name} `;
        vscode.setState({ draft: prompt.value });
        drawSuggestions();
      });
      return item;
    }),
  );
}
prompt.addEventListener('paste', (event) => {
  const files = [...(event.clipboardData?.files ?? [])].filter((file) => file.type.startsWith('image/'));
  if (files.length) {
    event.preventDefault();
    void addImages(files);
  }
});
attach.addEventListener('click', () => imageFile.click());
imageFile.addEventListener('change', () => {
  void addImages(imageFile.files ?? []);
  imageFile.value = '';
});
send.addEventListener('click', ask);
cancel.addEventListener('click', () => post({ type: 'cancel' }));
session.addEventListener('change', () => post({ type: 'pickSession', sessionId: session.value }));
session.addEventListener('focus', () => post({ type: 'refreshSessions' }));

function drawSessions(next: WebviewModel): void {
  const wanted = next.sessions.map((s) => `${s.id}\u0000${s.label}`).join('\u0001');
  if (session.dataset.options !== wanted) {
    session.dataset.options = wanted;
    session.replaceChildren(
      ...next.sessions.map((choice) => {
        const option = document.createElement('option');
        option.value = choice.id;
        option.textContent = choice.label;
        return option;
      }),
    );
  }
  session.value = next.sessionId;
}

function drawServer(next: WebviewModel): void {
  const { state, message } = next.server;
  server.hidden = state === 'running';
  server.className = `server ${state}`;
  server.replaceChildren();
  if (state === 'running') {
    return;
  }
  const text = { starting: 'Starting the agentls server…', stopped: 'The agentls server is stopped.', failed: 'The agentls server is not running.' }[state];
  server.append(document.createTextNode(`${text} ${message}`.trim()));
  if (state !== 'starting') {
    const restart = document.createElement('button');
    restart.type = 'button';
    restart.textContent = 'Restart server';
    restart.addEventListener('click', () => post({ type: 'restartServer' }));
    server.append(' ', restart);
  }
}

// Seconds since the activity line last changed, counted here: a line that
// keeps counting says the run is alive even when nothing else moves.
let activitySince = 0;
let activityTimer: ReturnType<typeof setInterval> | undefined;

function drawElapsed(): void {
  const seconds = Math.floor((Date.now() - activitySince) / 1000);
  const elapsed = activity.querySelector('.elapsed');
  if (elapsed) {
    elapsed.textContent = seconds >= 2 ? ` · ${seconds} s` : '';
  }
}

function drawActivity(next: WebviewModel): void {
  const now = next.activity;
  if (!now) {
    activity.hidden = true;
    activity.dataset.text = '';
    if (activityTimer !== undefined) {
      clearInterval(activityTimer);
      activityTimer = undefined;
    }
    return;
  }
  activity.hidden = false;
  activity.className = `activity ${now.kind}`;
  if (activity.dataset.text !== now.text) {
    activity.dataset.text = now.text;
    activitySince = Date.now();
    const icon = activity.querySelector('.icon');
    if (icon) {
      icon.textContent = now.kind === 'waiting' ? '●' : '◌';
    }
    const text = activity.querySelector('.text');
    if (text) {
      text.textContent = now.text;
    }
  }
  drawElapsed();
  activityTimer ??= setInterval(drawElapsed, 1000);
}

function draw(next: WebviewModel): void {
  model = next;
  drawSessions(next);
  drawServer(next);
  drawActivity(next);
  usage.textContent = next.usage;
  cancel.hidden = !next.running;
  document.body.dataset.server = next.server.state;
  send.disabled = false;
  send.textContent = next.running ? 'Tell' : 'Ask';
  send.title = next.running ? 'The agent reads this at its next step, as your words (Esc cancels the run)' : '';
  prompt.placeholder = next.running
    ? 'Tell the agent while it works: it reads this at its next step (Enter to send)'
    : 'Ask agentls… (Enter to send, Shift+Enter for a new line, / for a prompt command; paste an image to attach it)';
  drawSuggestions();
  if (next.items.length === 0) {
    log.replaceChildren();
    const empty = document.createElement('div');
    empty.className = 'empty';
    empty.textContent = 'Ask agentls about this workspace. Every edit waits for your Apply (or Reject) beside its diff; commands ask first.';
    log.append(empty);
    items.update([]);
    return;
  }
  log.querySelector(':scope > .empty')?.remove();
  items.update(next.items);
}

window.addEventListener('message', (event: MessageEvent<ToWebview>) => {
  const message = event.data;
  if (message.type === 'model') {
    draw(message.model);
  } else if (message.type === 'focusInput') {
    prompt.focus();
  }
});

post({ type: 'ready' });
