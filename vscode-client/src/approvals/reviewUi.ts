// The review of an edit on VS Code: its proposed text beside the current one
// in a diff editor (Apply and Reject in the diff's title bar), the chat card's
// phase, and the end of a review whose run ended or whose time ran out.
import * as vscode from 'vscode';
import { editsSettled } from '../chat/model';
import type { ChatStore } from '../chat/store';
import { type ReadOnlyDocuments, SCHEME } from '../documents/readOnly';
import { type ProposedFile, proposedFiles, type TextEdit } from './proposed';
import type { Review, ReviewBroker, ReviewHost, ReviewPhase } from './reviews';
import { editedUris, type WorkspaceEditParams } from './saving';

export const REVIEW_WAITING_KEY = 'agentls.reviewWaiting';

interface Shown {
  title: string;
  diffs: { resource: vscode.Uri; left: vscode.Uri; right: vscode.Uri }[];
}

export class VsCodeReviewHost implements ReviewHost {
  private readonly items = new Map<number, string[]>();
  private readonly shown = new Map<number, Shown>();

  constructor(
    private readonly documents: ReadOnlyDocuments,
    private readonly store: ChatStore,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  async opened(review: Review): Promise<void> {
    void vscode.commands.executeCommand('setContext', REVIEW_WAITING_KEY, true);
    const edit = (review.params as unknown as WorkspaceEditParams).edit;
    const texts = await currentTexts(editedUris({ edit }));
    const files = proposedFiles(edit as { documentChanges?: unknown[]; changes?: Record<string, TextEdit[]> }, (uri) => texts.get(uri));
    const title = `Review: ${(review.params.label ?? 'agentls edit').replace(/^agentls: /, '')}`;
    const shown: Shown = { title, diffs: files.map((file) => this.diffOf(review, file)) };
    this.shown.set(review.id, shown);
    await this.show(shown);
  }

  /** The chat card's Show diff: the diff again, for the edit waiting now. */
  async showAgain(review: Review): Promise<void> {
    const shown = this.shown.get(review.id);
    if (shown) {
      await this.show(shown);
    }
  }

  phase(review: Review, phase: ReviewPhase): void {
    this.store.dispatch({ type: 'review_phase', ids: this.itemsOf(review), phase });
  }

  closePreview(): Promise<unknown> {
    return Promise.resolve(vscode.commands.executeCommand('refactorPreview.discard'));
  }

  async closed(review: Review): Promise<void> {
    void vscode.commands.executeCommand('setContext', REVIEW_WAITING_KEY, false);
    const shown = this.shown.get(review.id);
    this.shown.delete(review.id);
    this.items.delete(review.id);
    if (!shown) {
      return;
    }
    const ours = new Set(shown.diffs.map((diff) => diff.right.toString()));
    const tabs = vscode.window.tabGroups.all
      .flatMap((group) => group.tabs)
      .filter((tab) => (tab.input instanceof vscode.TabInputTextDiff ? ours.has(tab.input.modified.toString()) : tab.label === shown.title));
    if (tabs.length > 0) {
      await vscode.window.tabGroups.close(tabs, true);
    }
    for (const diff of shown.diffs) {
      this.documents.delete(diff.right);
      if (diff.left.scheme === SCHEME) {
        this.documents.delete(diff.left);
      }
    }
  }

  warn(message: string): void {
    this.log.warn(`edit review: ${message}`);
  }

  /**
   * The chat's cards of this review: the edits the server announced just
   * before sending it (edit_proposed comes first, for each file of the edit).
   */
  itemsOf(review: Review): string[] {
    let ids = this.items.get(review.id);
    if (!ids) {
      ids = Object.values(this.store.state.views).flatMap((view) =>
        view.items.filter((item) => item.type === 'edit' && item.status === 'proposed' && item.review).map((item) => item.id),
      );
      this.items.set(review.id, ids);
    }
    return ids;
  }

  private diffOf(review: Review, file: ProposedFile): Shown['diffs'][number] {
    const resource = vscode.Uri.parse(file.uri);
    const name = vscode.workspace.asRelativePath(resource, false);
    const right = this.documents.set(`/review-${review.id}/proposed/${name}`, file.after);
    const left = file.created ? this.documents.set(`/review-${review.id}/new file/${name}`, '') : resource;
    return { resource, left, right };
  }

  private async show(shown: Shown): Promise<void> {
    const options: vscode.TextDocumentShowOptions = { preview: true, preserveFocus: true };
    const [only] = shown.diffs;
    if (shown.diffs.length === 1 && only) {
      await vscode.commands.executeCommand('vscode.diff', only.left, only.right, shown.title, options);
      return;
    }
    const changes = shown.diffs.map((diff) => [diff.resource, diff.left, diff.right]);
    await vscode.commands.executeCommand('vscode.changes', shown.title, changes);
  }
}

/**
 * A review whose cards all settled without its answer (the run was cancelled,
 * or the server stopped waiting) is over: the broker closes it, so nothing
 * is applied later to an edit nobody waits for.
 */
export function endReviewsOfEndedRuns(store: ChatStore, broker: ReviewBroker, host: VsCodeReviewHost): vscode.Disposable {
  const subscription = store.subscribe((state) => {
    const review = broker.waiting;
    if (!review) {
      return;
    }
    if (editsSettled(state, host.itemsOf(review))) {
      broker.decide('ended');
    }
  });
  return { dispose: () => subscription.dispose() };
}

/** The open document's text (unsaved changes included), else the file's; missing files are left out. */
async function currentTexts(uris: string[]): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const uri of uris) {
    const open = vscode.workspace.textDocuments.find((document) => document.uri.toString() === vscode.Uri.parse(uri).toString());
    if (open) {
      texts.set(uri, open.getText());
      continue;
    }
    try {
      texts.set(uri, new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.parse(uri))));
    } catch {
      // not there yet: the edit creates it
    }
  }
  return texts;
}
