// Starting, restarting and talking to `agentls serve` through vscode-languageclient.
import * as vscode from 'vscode';
import {
  type ApplyWorkspaceEditResult,
  CancellationToken,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  ResponseError,
  type ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import type { ApprovalBroker } from '../approvals/broker';
import type { PlanPrompts } from '../approvals/plans';
import type { ReviewBroker } from '../approvals/reviews';
import { applyThenSave } from '../approvals/saving';
import { vscodeSaveHost } from '../approvals/vscodeUi';
import type { ChatStore } from '../chat/store';
import { type AskParams, type AskStarted, asAgentEvent, COMMANDS, type CommandsInfo, EVENT_METHOD } from '../protocol';
import { describe, INSTALL_HINT } from '../server/resolve';
import { locateServer } from '../server/locate';
import { scopedServerSettings, serverEnvironment } from '../settings/serverSettings';
import { registerIntelligence } from '../intelligence/handlers';
import { AgentlsFeature } from './features';
import { effectiveSettings, inspectSettings, SECTION } from './settings';
import { registerWindowHandlers } from './windowHandlers';
import { trackAsk } from './asks';

export interface ConnectionContext {
  store: ChatStore;
  broker: ApprovalBroker;
  plans: PlanPrompts;
  reviews: ReviewBroker;
  log: vscode.LogOutputChannel;
  trace: vscode.LogOutputChannel;
  chatVisible: () => boolean;
  openChat: () => void;
  onCommands: (commands: readonly string[]) => void;
}

export class AgentConnection implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private feature: AgentlsFeature | undefined;
  private disposables: vscode.Disposable[] = [];
  private starting: Promise<void> | undefined;

  constructor(private readonly context: ConnectionContext) {}

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  canUndo(): boolean {
    return this.feature?.canUndo() ?? false;
  }

  canRewind(): boolean {
    return this.feature?.canRewind() ?? false;
  }

  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private async doStart(): Promise<void> {
    const { store, log } = this.context;
    store.dispatch({ type: 'server', state: 'starting' });
    const found = await locateServer();
    if (!found.ok) {
      log.error(`${found.message}\nTried: ${found.tried.join('; ')}`);
      store.dispatch({ type: 'server', state: 'failed', message: found.message });
      void this.explainFailure(found.message);
      return;
    }
    log.info(`starting ${describe(found.server)}`);
    const folder = vscode.workspace.workspaceFolders?.[0];
    const serverOptions: ServerOptions = {
      command: found.server.command,
      args: found.server.args,
      transport: TransportKind.stdio,
      options: { cwd: folder?.uri.fsPath, env: serverEnvironment(process.env, effectiveSettings()) },
    };
    const client = new LanguageClient('agentls', 'agentls', serverOptions, this.clientOptions());
    this.feature = new AgentlsFeature(this.context.onCommands);
    client.registerFeature(this.feature);
    this.disposables = [
      ...registerWindowHandlers(client, this.context),
      ...registerIntelligence(client, { log }), // after AgentlsFeature: it adds to its capability
      client.onNotification(EVENT_METHOD, (params: unknown) => {
        const event = asAgentEvent(params);
        if (event) {
          store.dispatch({ type: 'event', event });
          if (event.kind === 'run_finished') {
            void this.refreshSessions(); // the picker shows the new outcome and cost
          }
        }
      }),
      client.onDidChangeState((change) => {
        if (change.newState === State.Running) {
          store.dispatch({ type: 'server', state: 'running' });
        } else if (change.newState === State.Stopped && this.client === client) {
          store.dispatch({ type: 'server', state: 'stopped' });
        }
      }),
    ];
    this.client = client;
    try {
      await client.start();
      store.dispatch({ type: 'server', state: 'running' });
      void this.refreshSessions();
      void this.refreshCommands();
    } catch (error) {
      const message = `the server did not start (${errorText(error)}).`;
      log.error(message);
      store.dispatch({ type: 'server', state: 'failed', message });
      void this.explainFailure(`agentls: ${message} ${INSTALL_HINT}`);
    }
  }

  private clientOptions(): LanguageClientOptions {
    const { store, log, trace } = this.context;
    return {
      documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
      outputChannel: log,
      traceOutputChannel: trace,
      initializationOptions: () => scopedServerSettings(inspectSettings()),
      synchronize: { configurationSection: SECTION },
      connectionOptions: { maxRestartCount: 3 },
      middleware: {
        workspace: {
          // Edits to review wait for the person's Apply, Reject or picked hunks (reviews.ts).
          // Accepted edits are then saved, so the server's next tool reads them from disk.
          handleApplyEdit: (params, next) =>
            applyThenSave(
              params,
              (edit) => this.context.reviews.handle(edit, (p) => Promise.resolve(next(p, CancellationToken.None)).then(asEditResult)),
              vscodeSaveHost,
            ),
          // The server pulls section `agentls`; it gets only its own, explicitly set keys,
          // those of the workspace scopes marked as such (the server trusts them less).
          configuration: async (params, token, next) => {
            const answers = await next(params, token);
            if (!Array.isArray(answers)) {
              return answers;
            }
            return params.items.map((item, i) =>
              item.section === SECTION
                ? scopedServerSettings(inspectSettings(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined))
                : answers[i],
            );
          },
        },
        // Code actions run the server's agentls.ask: the chat view follows those runs too.
        executeCommand: (command, args, next) => {
          if (command !== COMMANDS.ask || !args[0] || typeof args[0] !== 'object') {
            return next(command, args);
          }
          this.context.openChat();
          return trackAsk(store, args[0] as AskParams, async () => (await next(command, args)) as AskStarted);
        },
      },
    };
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    for (const disposable of this.disposables) {
      disposable.dispose();
    }
    this.disposables = [];
    if (client) {
      try {
        if (client.state !== State.Stopped) {
          await client.stop(5000);
        }
      } catch (error) {
        this.context.log.warn(`stopping the server: ${errorText(error)}`);
      }
      await client.dispose().catch(() => undefined);
    }
    this.context.store.dispatch({ type: 'server', state: 'stopped' });
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** workspace/executeCommand straight to the server (not through VS Code's command of the same name). */
  async command<T>(command: string, args: unknown[] = []): Promise<T> {
    if (this.starting) {
      await this.starting;
    }
    const client = this.client;
    if (!client || client.state !== State.Running) {
      throw new Error('the agentls server is not running (agentls: Restart Server starts it)');
    }
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: args })) as T;
  }

  /** The prompt commands of the active file's folder, for the chat view's suggestions. */
  async refreshCommands(): Promise<void> {
    try {
      const document = vscode.window.activeTextEditor?.document.uri;
      const where = document?.scheme === 'file' ? { uri: document.toString() } : {};
      const listed = await this.command<CommandsInfo>(COMMANDS.commands, [where]);
      this.context.store.dispatch({ type: 'commands_listed', commands: listed?.commands ?? [] });
    } catch (error) {
      this.context.log.warn(`listing prompt commands: ${errorText(error)}`);
    }
  }

  async refreshSessions(): Promise<void> {
    try {
      const sessions = await this.command<unknown>(COMMANDS.sessions);
      if (Array.isArray(sessions)) {
        this.context.store.dispatch({ type: 'sessions_listed', sessions });
      }
    } catch (error) {
      this.context.log.warn(`listing sessions: ${errorText(error)}`);
    }
  }

  private async explainFailure(message: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, 'Open Settings', 'Show Log', 'Retry');
    if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'agentls.serverPath');
    } else if (choice === 'Show Log') {
      this.context.log.show();
    } else if (choice === 'Retry') {
      await this.restart();
    }
  }

  dispose(): void {
    void this.stop();
  }
}

function asEditResult(answer: ApplyWorkspaceEditResult | ResponseError<void>): ApplyWorkspaceEditResult {
  return answer instanceof ResponseError ? { applied: false, failureReason: answer.message } : answer;
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
