// Activation: wires the store, the server connection, the chat view, the
// status bar and the commands together. Agent logic stays in the server.
import * as vscode from 'vscode';
import { ApprovalBroker } from './approvals/broker';
import { PlanPrompts } from './approvals/plans';
import { ReviewBroker } from './approvals/reviews';
import { endReviewsOfEndedRuns, VsCodeReviewHost } from './approvals/reviewUi';
import { vscodeApprovalUi } from './approvals/vscodeUi';
import { ChatStore } from './chat/store';
import { ChatViewProvider } from './chat/viewProvider';
import { AgentConnection } from './client/connection';
import { effectiveSettings, SECTION } from './client/settings';
import { Actions } from './commands/actions';
import { registerDoctor } from './commands/doctor';
import { registerMemory } from './commands/memory';
import { registerPromptCommands } from './commands/promptCommands';
import { registerProcesses } from './commands/processes';
import { ReadOnlyDocuments } from './documents/readOnly';
import { onWebviewMessage, registerCommands } from './commands/register';
import { Rewinding } from './commands/rewind';
import { COMMANDS } from './protocol';
import { useExtensionContext } from './server/locate';
import { modalApprovals, RESTART_KEYS } from './settings/serverSettings';
import { createStatusBar } from './status/statusBar';

let running: AgentConnection | undefined;

export function activate(context: vscode.ExtensionContext): void {
  useExtensionContext(context); // the bundled server installs into its global storage
  const log = vscode.window.createOutputChannel('agentls', { log: true });
  const trace = vscode.window.createOutputChannel('agentls LSP trace', { log: true });
  const store = new ChatStore();
  const broker = new ApprovalBroker({
    ui: vscodeApprovalUi,
    pending: () => store.pendingApprovals(),
    modalSetting: () => modalApprovals(effectiveSettings()),
    prompted: (callId, via) => store.dispatch({ type: 'approval_prompted', callId, via }),
  });
  const plans = new PlanPrompts({ ui: vscodeApprovalUi, pending: () => store.pendingPlans() });
  const documents = new ReadOnlyDocuments();
  const reviewHost = new VsCodeReviewHost(documents, store, log);
  const reviews = new ReviewBroker(reviewHost);
  let chat: ChatViewProvider | undefined;
  const connection = new AgentConnection({
    store,
    broker,
    plans,
    reviews,
    log,
    trace,
    chatVisible: () => chat?.visible ?? false,
    openChat: () => void chat?.reveal(),
    onCommands: (commands) => {
      void vscode.commands.executeCommand('setContext', 'agentls.serverCanUndo', commands.includes(COMMANDS.undo));
      void vscode.commands.executeCommand('setContext', 'agentls.serverCanRewind', commands.includes(COMMANDS.rewind));
    },
  });
  running = connection;
  const actions = new Actions({ connection, store, broker, plans, reviews, reviewHost, revealChat: (focus) => chat?.reveal(focus) ?? Promise.resolve(), log });
  const rewinding = new Rewinding({
    connection,
    store,
    send: (prompt) => actions.send(prompt),
    continueSession: (sessionId) => actions.continueSession(sessionId),
  });
  chat = new ChatViewProvider(
    context.extensionUri,
    store,
    onWebviewMessage(
      actions,
      rewinding,
      () => connection.restart(),
      () => connection.refreshSessions(),
      () => connection.refreshCommands(),
    ),
  );

  context.subscriptions.push(
    log,
    trace,
    documents,
    endReviewsOfEndedRuns(store, reviews, reviewHost),
    vscode.window.registerWebviewViewProvider(ChatViewProvider.viewId, chat, { webviewOptions: { retainContextWhenHidden: true } }),
    chat,
    createStatusBar(store),
    ...registerCommands(actions, rewinding, { restart: () => connection.restart(), showLog: () => log.show() }),
    registerDoctor(connection, documents, String(context.extension.packageJSON.version)),
    registerMemory(connection),
    registerPromptCommands(connection, actions),
    registerProcesses(connection),
    runningContextKey(store),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (RESTART_KEYS.some((key) => event.affectsConfiguration(`${SECTION}.${key}`))) {
        void restartForNewSettings(connection, store);
      }
    }),
  );
  void connection.start();
}

/** VS Code waits for this: the server gets its shutdown and aborts its runs cleanly. */
export function deactivate(): Promise<void> | undefined {
  return running?.stop();
}

/** `agentls.running`, for the palette's Cancel and the chat view's title bar. */
function runningContextKey(store: ChatStore): vscode.Disposable {
  let running = false;
  return store.subscribe(() => {
    const now = store.runningSessions().length > 0;
    if (now !== running) {
      running = now;
      void vscode.commands.executeCommand('setContext', 'agentls.running', now);
    }
  });
}

async function restartForNewSettings(connection: AgentConnection, store: ChatStore): Promise<void> {
  if (store.runningSessions().length > 0) {
    const choice = await vscode.window.showInformationMessage(
      'agentls: the server path or environment changed. Restarting the server aborts the run going on.',
      'Restart Now',
      'Later',
    );
    if (choice !== 'Restart Now') {
      return;
    }
  }
  await connection.restart();
}
