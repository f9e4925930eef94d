// window/showMessageRequest and window/showMessage, taken over from
// vscode-languageclient: approvals go through the ApprovalBroker (modal for
// commands, mirrored in the chat view), a proposed plan through PlanPrompts (a
// notification and the chat's plan card); everything else is shown as the
// client would, except the "run finished" message the chat view already shows.
import * as vscode from 'vscode';
import {
  type LanguageClient,
  MessageType,
  ShowMessageNotification,
  type ShowMessageParams,
  ShowMessageRequest,
  type ShowMessageRequestParams,
} from 'vscode-languageclient/node';
import type { ApprovalBroker } from '../approvals/broker';
import { isPlanRequest, type PlanPrompts } from '../approvals/plans';
import { isApprovalRequest } from '../approvals/prompt';
import { isMirroredInChat } from './mirrored';

export interface WindowHandlerContext {
  broker: ApprovalBroker;
  plans: PlanPrompts;
  chatVisible: () => boolean;
  openChat: () => void;
  log: vscode.LogOutputChannel;
}

/** Registered before start(): the client adds them after its own, so they win. */
export function registerWindowHandlers(client: LanguageClient, context: WindowHandlerContext): vscode.Disposable[] {
  return [
    client.onRequest(ShowMessageRequest.type, (params: ShowMessageRequestParams) =>
      isApprovalRequest(params)
        ? context.broker.ask(params)
        : isPlanRequest(params)
          ? context.plans.ask(params)
          : showRequest(params),
    ),
    client.onNotification(ShowMessageNotification.type, (params: ShowMessageParams) => showMessage(params, context)),
  ];
}

async function showRequest(params: ShowMessageRequestParams): Promise<{ title: string } | null> {
  const actions = params.actions ?? [];
  const show = pick(params.type);
  const chosen = await show(params.message, ...actions);
  return chosen ?? null;
}



function showMessage(params: ShowMessageParams, context: WindowHandlerContext): void {
  context.log.info(params.message);
  if (isMirroredInChat(params)) {
    if (context.chatVisible()) {
      return;
    }
    void vscode.window.showInformationMessage(params.message, 'Open Chat').then((choice) => {
      if (choice) {
        context.openChat();
      }
    });
    return;
  }
  void pick(params.type)(params.message);
}

function pick(type: MessageType): typeof vscode.window.showInformationMessage {
  switch (type) {
    case MessageType.Error:
      return vscode.window.showErrorMessage;
    case MessageType.Warning:
      return vscode.window.showWarningMessage;
    default:
      return vscode.window.showInformationMessage;
  }
}
