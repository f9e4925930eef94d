// Rewind, fork, and "edit and ask again": pick lists and a confirmation around
// agentls.asks, agentls.rewind and agentls.fork. The server does the work.
import * as vscode from 'vscode';
import { NEW_SESSION } from '../chat/model';
import type { ChatStore } from '../chat/store';
import type { AgentConnection } from '../client/connection';
import { errorText } from '../client/connection';
import { type AskEntry, COMMANDS, type Forked, type RewindParams, type RewindResult } from '../protocol';
import { askLabel, rewindConfirmation } from './rewindText';

export interface RewindDeps {
  connection: AgentConnection;
  store: ChatStore;
  /** Sends an ask in the chat's session. */
  send: (prompt: string) => Promise<void>;
  continueSession: (sessionId: string) => void;
}

type Half = Pick<RewindParams, 'conversation' | 'files'>;
const HALVES: Record<string, Half> = {
  Rewind: { conversation: true, files: true },
  'Conversation Only': { conversation: true, files: false },
  'Files Only': { conversation: false, files: true },
};

export class Rewinding {
  constructor(private readonly deps: RewindDeps) {}

  private session(): string | undefined {
    const current = this.deps.store.state.current;
    if (current === NEW_SESSION) {
      void vscode.window.showInformationMessage('agentls: no session in the chat yet.');
      return undefined;
    }
    return current;
  }

  /** Rewind… : pick an ask still in the conversation, see what it undoes, confirm. */
  async rewind(): Promise<void> {
    const sessionId = this.session();
    if (!sessionId) {
      return;
    }
    await this.guarded(async () => {
      const live = (await this.asks(sessionId)).filter((entry) => !entry.rewound);
      const picked = await vscode.window.showQuickPick(
        live.map((entry) => ({ ...askLabel(entry), entry })),
        { title: 'Rewind to before which ask? It and every later ask are taken back' },
      );
      if (!picked) {
        return;
      }
      const preview = await this.preview({ sessionId, ask: picked.entry.ask });
      const choice = await vscode.window.showWarningMessage(
        `Rewind to before ask ${preview.ask}?`,
        { modal: true, detail: rewindConfirmation(preview) },
        ...Object.keys(HALVES),
      );
      if (choice) {
        await this.apply(sessionId, { sessionId, ask: preview.ask, ...HALVES[choice] });
      }
    });
  }

  /** The chat's Edit on an earlier prompt: a rewind to its ask, then the new text, once confirmed. */
  async editAndAsk(runId: string, prompt: string): Promise<void> {
    const sessionId = this.session();
    if (!sessionId) {
      return;
    }
    await this.guarded(async () => {
      const preview = await this.preview({ sessionId, runId });
      const choice = await vscode.window.showWarningMessage(
        `Edit ask ${preview.ask} and ask again?`,
        { modal: true, detail: `${rewindConfirmation(preview)}\nThen asks: ${prompt}` },
        'Rewind and Ask',
      );
      if (choice) {
        await this.apply(sessionId, { sessionId, runId });
        await this.deps.send(prompt);
      }
    });
  }

  /** Fork… : a new session whose history ends before the ask picked (or is all of it). */
  async fork(): Promise<void> {
    const sessionId = this.session();
    if (!sessionId) {
      return;
    }
    await this.guarded(async () => {
      const entries = await this.asks(sessionId);
      const whole = { label: 'The whole session', description: `${entries.length} asks`, ask: undefined };
      const before = entries.map((entry) => ({ ...askLabel(entry), label: `Before ${askLabel(entry).label}`, ask: entry.ask }));
      const picked = await vscode.window.showQuickPick([whole, ...before], {
        title: 'Fork the session: its history up to where? (no file changes)',
      });
      if (!picked) {
        return;
      }
      const params = picked.ask === undefined ? { sessionId } : { sessionId, ask: picked.ask };
      const forked = await this.deps.connection.command<Forked>(COMMANDS.fork, [params]);
      await this.deps.connection.refreshSessions();
      this.deps.continueSession(forked.sessionId);
      const where = forked.ask === null ? 'whole' : `before ask ${forked.ask}`;
      this.deps.store.dispatch({ type: 'notice', text: `Forked from ${forked.forkedFrom} (${where}).`, tone: 'info' });
    });
  }

  private asks(sessionId: string): Promise<AskEntry[]> {
    return this.deps.connection.command<AskEntry[]>(COMMANDS.asks, [{ sessionId }]);
  }

  private preview(params: RewindParams): Promise<RewindResult> {
    return this.deps.connection.command<RewindResult>(COMMANDS.rewind, [{ ...params, dryRun: true }]);
  }

  private async apply(sessionId: string, params: RewindParams): Promise<void> {
    const result = await this.deps.connection.command<RewindResult>(COMMANDS.rewind, [params]);
    this.deps.store.dispatch({ type: 'rewound', sessionId, runs: result.runs });
    const partial = result.kept.length > 0 || result.refused.length > 0;
    this.deps.store.dispatch({ type: 'notice', text: `${capital(result.summary)}.`, tone: partial ? 'error' : 'info' });
  }

  private async guarded(work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      void vscode.window.showErrorMessage(`agentls: ${errorText(error)}`);
    }
  }
}

function capital(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
