// agentls: Doctor — the server's `agentls.doctor` report in a markdown preview.
import * as vscode from 'vscode';
import type { AgentConnection } from '../client/connection';
import { renderDoctor } from './doctorReport';
import { CLIENT_COMMANDS } from './ids';

export const DOCTOR = 'agentls.doctor';

export function registerDoctor(connection: AgentConnection, clientVersion: string): vscode.Disposable {
  return vscode.commands.registerCommand(CLIENT_COMMANDS.doctor, async () => {
    try {
      const uri = vscode.window.activeTextEditor?.document.uri;
      const report = await connection.command<unknown>(DOCTOR, uri?.scheme === 'file' ? [{ uri: uri.toString() }] : [{}]);
      const document = await vscode.workspace.openTextDocument({ language: 'markdown', content: renderDoctor(report, clientVersion) });
      await vscode.window.showTextDocument(document, { preview: true });
    } catch (error) {
      void vscode.window.showErrorMessage(`agentls: Doctor: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}
