// agentls: Run a Prompt Command… — the workspace's and the person's `/name` files (the
// server's `agentls.commands`) in a quick pick, then the words after the name, asked as
// `/name words` (the server expands it as in every face).
import * as vscode from 'vscode';
import type { AgentConnection } from '../client/connection';
import type { CommandsInfo } from '../protocol';
import type { Actions } from './actions';
import { CLIENT_COMMANDS } from './ids';
import { commandPrompt, promptCommandItems } from './promptCommandItems';

export const PROMPT_COMMANDS = 'agentls.commands';

export function registerPromptCommands(connection: AgentConnection, actions: Actions): vscode.Disposable {
  return vscode.commands.registerCommand(CLIENT_COMMANDS.runPromptCommand, async () => {
    try {
      const document = vscode.window.activeTextEditor?.document.uri;
      const uri = document?.scheme === 'file' ? document : undefined;
      const listed = await connection.command<CommandsInfo>(PROMPT_COMMANDS, [uri ? { uri: uri.toString() } : {}]);
      const items = promptCommandItems(listed);
      if (items.length === 0) {
        const skipped = listed?.problems.length ? ` (${listed.problems.length} file(s) skipped: see agentls: Doctor)` : '';
        void vscode.window.showInformationMessage(`agentls: no prompt commands here: add .agentls/commands/NAME.md${skipped}`);
        return;
      }
      const picked = await vscode.window.showQuickPick(items, { title: 'agentls prompt commands', placeHolder: 'Pick a command', matchOnDescription: true });
      if (picked === undefined) return;
      const words = await vscode.window.showInputBox({ title: picked.label, prompt: picked.description, placeHolder: picked.placeholder });
      if (words === undefined) return;
      await actions.send(commandPrompt(picked.name, words), { uri });
    } catch (error) {
      void vscode.window.showErrorMessage(`agentls: Prompt commands: ${error instanceof Error ? error.message : String(error)}`);
    }
  });
}
