// Capabilities this client declares beyond vscode-languageclient's defaults,
// and what it reads from the server's answer.
import type {
  ClientCapabilities,
  FeatureState,
  ServerCapabilities,
  StaticFeature,
} from 'vscode-languageclient/node';
import { COMMANDS } from '../protocol';

export class AgentlsFeature implements StaticFeature {
  private commands: string[] = [];

  constructor(private readonly onCommands: (commands: readonly string[]) => void) {}

  fillClientCapabilities(capabilities: ClientCapabilities): void {
    // vscode-languageclient declares these already; the review depends on them
    // (the server annotates edits with needsConfirmation only when they are
    // declared, and VS Code then shows its Refactor Preview), so they are
    // declared here too, whatever a future client release does.
    const workspace = (capabilities.workspace ??= {});
    const edit = (workspace.workspaceEdit ??= {});
    edit.documentChanges = true;
    edit.changeAnnotationSupport ??= { groupsOnLabel: true };
    const window = (capabilities.window ??= {});
    window.workDoneProgress = true;
    window.showDocument ??= { support: true };
    // The opt-ins of docs/protocol.md: this client draws agentls/event in a chat
    // view, and saves the documents an accepted edit touched (connection.ts).
    capabilities.experimental = {
      ...(capabilities.experimental as object | undefined),
      agentls: { chatView: true, savesEdits: true },
    };
  }

  initialize(capabilities: ServerCapabilities): void {
    this.commands = capabilities.executeCommandProvider?.commands ?? [];
    this.onCommands(this.commands);
  }

  getState(): FeatureState {
    return { kind: 'static' };
  }

  clear(): void {
    this.commands = [];
    this.onCommands(this.commands);
  }

  has(command: string): boolean {
    return this.commands.includes(command);
  }

  canUndo(): boolean {
    return this.has(COMMANDS.undo);
  }

  canRewind(): boolean {
    return this.has(COMMANDS.rewind);
  }
}
