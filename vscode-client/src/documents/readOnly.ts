// Read-only documents the extension shows (the Doctor's report, an edit's
// proposed text), served from memory under the `agentls:` scheme. VS Code
// opens such documents read-only, titled by their path's last segment.
import * as vscode from 'vscode';

export const SCHEME = 'agentls';

export class ReadOnlyDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(SCHEME, this);

  /** `path` like `/doctor/agentls doctor`; the same path again replaces the text. */
  set(path: string, text: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: SCHEME, path });
    this.texts.set(uri.toString(), text);
    this.changed.fire(uri);
    return uri;
  }

  delete(uri: vscode.Uri): void {
    this.texts.delete(uri.toString());
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
