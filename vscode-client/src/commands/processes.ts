// agentls: Background Processes — what the open sessions run in the background (the
// server's `agentls.processes`), listed in a quick pick; the running one picked is stopped
// after a yes.
import * as vscode from 'vscode';
import type { AgentConnection } from '../client/connection';
import type { ProcessesResult } from '../protocol';
import { CLIENT_COMMANDS } from './ids';
import { processItems } from './processItems';

export const PROCESSES = 'agentls.processes';

export function registerProcesses(connection: AgentConnection): vscode.Disposable {
  return vscode.commands.registerCommand(CLIENT_COMMANDS.processes, async () => {
    try {
      const listed = await connection.command<ProcessesResult>(PROCESSES, [{}]);
      const items = processItems(listed);
      if (items.length === 0) {
        void vscode.window.showInformationMessage('agentls: no background processes in the open sessions');
        return;
      }
      const picked = await vscode.window.showQuickPick(items, {
        title: 'agentls background processes',
        placeHolder: 'Pick a running process to stop it',
      });
      if (picked === undefined || !picked.running) return;
      const answer = await vscode.window.showWarningMessage(`Stop ${picked.id}: ${picked.label}?`, { modal: true }, 'Stop');
      if (answer !== 'Stop') return;
      await connection.command<ProcessesResult>(PROCESSES, [{ sessionId: picked.sessionId, stop: picked.id }]);
      void vscode.window.showInformationMessage(`agentls: stopped ${picked.id}`);
    } catch (error) {
      void vscode.window.showErrorMessage(`agentls: Background Processes: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}
