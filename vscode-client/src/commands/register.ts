// The palette's commands and the chat view's messages, both onto Actions.
import * as vscode from 'vscode';
import type { FromWebview } from '../chat/messages';
import type { Actions } from './actions';
import { CLIENT_COMMANDS } from './ids';
import type { Rewinding } from './rewind';


export function registerCommands(
  actions: Actions,
  rewinding: Rewinding,
  extra: { restart: () => Promise<void>; showLog: () => void },
): vscode.Disposable[] {
  const table: Record<string, () => unknown> = {
    [CLIENT_COMMANDS.ask]: () => actions.ask(),
    [CLIENT_COMMANDS.askAboutSelection]: () => actions.askAboutSelection(),
    [CLIENT_COMMANDS.fixProblem]: () => actions.fixProblem(),
    [CLIENT_COMMANDS.cancel]: () => actions.cancel(),
    [CLIENT_COMMANDS.showSessions]: () => actions.showSessions(),
    [CLIENT_COMMANDS.newSession]: () => actions.newSession(),
    [CLIENT_COMMANDS.openTranscript]: () => actions.openTranscript(),
    [CLIENT_COMMANDS.setMode]: () => actions.setMode(),
    [CLIENT_COMMANDS.undoLastTurn]: () => actions.undoLastTurn(),
    [CLIENT_COMMANDS.rewind]: () => rewinding.rewind(),
    [CLIENT_COMMANDS.fork]: () => rewinding.fork(),
    [CLIENT_COMMANDS.restartServer]: () => extra.restart(),
    [CLIENT_COMMANDS.showServerLog]: () => extra.showLog(),
    [CLIENT_COMMANDS.applyEdit]: () => actions.review('apply'),
    [CLIENT_COMMANDS.rejectEdit]: () => actions.review('reject'),
    [CLIENT_COMMANDS.pickChanges]: () => actions.review('pick'),
  };
  return Object.entries(table).map(([id, run]) => vscode.commands.registerCommand(id, run));
}

export function onWebviewMessage(
  actions: Actions,
  rewinding: Rewinding,
  restart: () => Promise<void>,
  refreshSessions: () => Promise<void>,
  refreshCommands: () => Promise<void> = () => Promise.resolve(),
) {
  return (message: FromWebview): void => {
    switch (message.type) {
      case 'ask':
        void actions.send(message.prompt, { images: message.images });
        return;
      case 'steer':
        void actions.steer(message.prompt);
        return;
      case 'planAnswer':
        void actions.answerPlan(message.callId, message.title);
        return;
      case 'cancel':
        void actions.cancel();
        return;
      case 'approve':
        void actions.answerApproval(message.callId, message.title);
        return;
      case 'answer':
        void actions.answer(message.id, message.answer);
        return;
      case 'showDiff':
        void actions.showDiff(message.id);
        return;
      case 'review':
        void actions.review(message.action);
        return;
      case 'pickSession':
        if (message.sessionId === '') {
          actions.newSession();
        } else {
          actions.continueSession(message.sessionId);
        }
        return;
      case 'refreshSessions':
        void refreshSessions();
        return;
      case 'refreshCommands':
        void refreshCommands();
        return;
      case 'openTranscript':
        void actions.openTranscript();
        return;
      case 'restartServer':
        void restart();
        return;
      case 'openFile':
        void actions.openFile(message.path);
        return;
      case 'editAsk':
        void rewinding.editAndAsk(message.runId, message.prompt);
        return;
      case 'ready':
        return;
    }
  };
}
