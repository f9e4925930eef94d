// agentls: Doctor — the server's `agentls.doctor` report as a read-only
// markdown document titled "agentls doctor" (run again, it shows the new report).
import * as vscode from 'vscode';
import type { AgentConnection } from '../client/connection';
import type { ReadOnlyDocuments } from '../documents/readOnly';
import { renderDoctor } from './doctorReport';
import { CLIENT_COMMANDS } from './ids';

export const DOCTOR = 'agentls.doctor';
export const DOCTOR_PATH = '/agentls doctor';

export function registerDoctor(connection: AgentConnection, documents: ReadOnlyDocuments, clientVersion: string): vscode.Disposable {
  return vscode.commands.registerCommand(CLIENT_COMMANDS.doctor, async () => {
    try {
      const uri = vscode.window.activeTextEditor?.document.uri;
      const report = await connection.command<unknown>(DOCTOR, uri?.scheme === 'file' ? [{ uri: uri.toString() }] : [{}]);
      const shown = documents.set(DOCTOR_PATH, renderDoctor(report, clientVersion));
      const document = await vscode.languages.setTextDocumentLanguage(await vscode.workspace.openTextDocument(shown), 'markdown');
      await vscode.window.showTextDocument(document, { preview: true });
    } catch (error) {
      void vscode.window.showErrorMessage(`agentls: Doctor: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}
