// The status bar item: running state, the session's tokens and cost; a click
// cancels a run (or opens the chat, or restarts a failed server).
import * as vscode from 'vscode';
import type { ChatStore } from '../chat/store';
import { CLIENT_COMMANDS } from '../commands/ids';
import { languageStatus } from '../intelligence/status';
import { statusText } from './statusText';

export function createStatusBar(store: ChatStore): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('agentls.status', vscode.StatusBarAlignment.Left, 10);
  item.name = 'agentls';
  const draw = (): void => {
    const status = statusText(store.state);
    item.text = status.text;
    item.tooltip = [status.tooltip, languageStatus.line()].filter(Boolean).join('\n');
    item.command = {
      cancel: CLIENT_COMMANDS.cancel,
      focus: 'agentls.chat.focus',
      restart: CLIENT_COMMANDS.restartServer,
    }[status.action];
    item.backgroundColor = status.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    item.accessibilityInformation = { label: status.tooltip.replace(/\n/g, '. ') };
  };
  draw();
  item.show();
  const subscription = store.subscribe(draw);
  const languages = languageStatus.subscribe(draw);
  return { dispose: () => (subscription.dispose(), languages.dispose(), item.dispose()) };
}
