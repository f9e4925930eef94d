// The chat view: a webview in the agentls side bar that draws the store's
// state and hands the person's clicks to `onMessage`.
import * as vscode from 'vscode';
import { waitingCount } from './activity';
import { chatHtml, newNonce } from './html';
import type { FromWebview, ToWebview } from './messages';
import { webviewModel } from './messages';
import type { ChatStore } from './store';

const POST_EVERY_MS = 40; // streamed text arrives in bursts; one redraw per frame or two is plenty

export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  static readonly viewId = 'agentls.chat';
  private view: vscode.WebviewView | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly subscription: { dispose(): void };

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly store: ChatStore,
    private readonly onMessage: (message: FromWebview) => void,
  ) {
    this.subscription = store.subscribe(() => this.schedule());
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    const webview = view.webview;
    webview.options = {
      enableScripts: true,
      localResourceRoots: [vscode.Uri.joinPath(this.extensionUri, 'out'), vscode.Uri.joinPath(this.extensionUri, 'media')],
    };
    webview.html = chatHtml({
      cspSource: webview.cspSource,
      nonce: newNonce(),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'out', 'webview.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(this.extensionUri, 'media', 'chat.css')).toString(),
    });
    webview.onDidReceiveMessage((message: FromWebview) => {
      if (message.type === 'ready') {
        this.post();
      } else {
        this.onMessage(message);
      }
    });
    view.onDidChangeVisibility(() => {
      if (view.visible) {
        this.post();
      }
    });
    view.onDidDispose(() => {
      if (this.view === view) {
        this.view = undefined;
      }
    });
  }

  get visible(): boolean {
    return this.view?.visible ?? false;
  }

  /** Shows the chat; with `focusInput`, the cursor goes to its prompt box. */
  async reveal(focusInput = false): Promise<void> {
    if (this.view && !focusInput) {
      this.view.show(true);
      return;
    }
    await vscode.commands.executeCommand(`${ChatViewProvider.viewId}.focus`);
    if (focusInput) {
      this.send({ type: 'focusInput' });
    }
  }

  private schedule(): void {
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.post();
      }, POST_EVERY_MS);
    }
  }

  private post(): void {
    this.send({ type: 'model', model: webviewModel(this.store.state) });
    this.drawBadge();
  }

  /** The activity bar's agentls icon counts what waits for the person, also while the chat is hidden. */
  private drawBadge(): void {
    if (!this.view) {
      return;
    }
    const waiting = waitingCount(this.store.state);
    if (waiting !== (this.view.badge?.value ?? 0)) {
      // A badge of 0 is not shown; VS Code 1.100 keeps showing one set back to undefined.
      this.view.badge = { value: waiting, tooltip: waiting > 0 ? `agentls is waiting for you (${waiting})` : '' };
    }
  }

  private send(message: ToWebview): void {
    if (this.view) {
      void this.view.webview.postMessage(message);
    }
  }

  dispose(): void {
    this.subscription.dispose();
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
    }
  }
}
