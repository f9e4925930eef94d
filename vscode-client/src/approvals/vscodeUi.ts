// The approval dialogs themselves, on VS Code's message API.
import * as vscode from 'vscode';
import type { ApprovalUi } from './broker';
import type { SaveHost } from './saving';

export const vscodeApprovalUi: ApprovalUi = {
  async modal(message, detail, titles) {
    // Deny is the close affordance: Escape denies, and VS Code adds no extra Cancel button.
    const items = titles.map((title) => ({ title, isCloseAffordance: title === 'Deny' }));
    const chosen = await vscode.window.showWarningMessage(message, { modal: true, detail }, ...items);
    return chosen?.title;
  },
  async notify(message, titles) {
    const chosen = await vscode.window.showWarningMessage(message, ...titles.map((title) => ({ title })));
    return chosen?.title;
  },
};

function openDocument(uri: string): vscode.TextDocument | undefined {
  const wanted = vscode.Uri.parse(uri).toString();
  return vscode.workspace.textDocuments.find((document) => document.uri.toString() === wanted);
}

/** Saving accepted edits (saving.ts) on VS Code's open documents. */
export const vscodeSaveHost: SaveHost = {
  isDirty: (uri) => openDocument(uri)?.isDirty ?? false,
  save: async (uri) => (await openDocument(uri)?.save()) ?? false,
};
