// agentls: Memory — what the agent remembers here (the server's `agentls.memory`),
// listed in a quick pick with any store that did not load; the memory picked is forgotten
// after a yes.
import * as vscode from 'vscode';
import type { AgentConnection } from '../client/connection';
import type { MemoryResult } from '../protocol';
import { CLIENT_COMMANDS } from './ids';
import { memoryItems } from './memoryItems';

export const MEMORY = 'agentls.memory';

export function registerMemory(connection: AgentConnection): vscode.Disposable {
  return vscode.commands.registerCommand(CLIENT_COMMANDS.memory, async () => {
    try {
      const uri = vscode.window.activeTextEditor?.document.uri;
      const where = uri?.scheme === 'file' ? { uri: uri.toString() } : {};
      const listed = await connection.command<MemoryResult>(MEMORY, [where]);
      const items = memoryItems(listed);
      if (items.length === 0) {
        void vscode.window.showInformationMessage('agentls: no memories here (agentls memory add TEXT adds one)');
        return;
      }
      const picked = await vscode.window.showQuickPick(items, { title: 'agentls memory', placeHolder: 'Pick a memory to forget it' });
      if (picked === undefined) return;
      if (picked.id === undefined) {
        // a store that did not load: nothing in it can be forgotten until its file is fixed
        void vscode.window.showWarningMessage(`agentls: ${picked.detail}`);
        return;
      }
      const answer = await vscode.window.showWarningMessage(`Forget “${picked.label}”?`, { modal: true }, 'Forget');
      if (answer !== 'Forget') return;
      await connection.command<MemoryResult>(MEMORY, [{ ...where, action: 'forget', id: picked.id }]);
      void vscode.window.showInformationMessage(`agentls: forgot ${picked.id}`);
    } catch (error) {
      void vscode.window.showErrorMessage(`agentls: Memory: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}
