// The approval dialogs themselves, on VS Code's message API.
import * as vscode from 'vscode';
import type { ApprovalUi } from './broker';

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
