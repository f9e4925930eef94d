// What the person can do, whether from the palette, a keybinding, the status
// bar or the chat view. Each action is a thin call to the server.
import * as vscode from 'vscode';
import type { ApprovalBroker } from '../approvals/broker';
import type { PlanPrompts } from '../approvals/plans';
import type { ReviewBroker } from '../approvals/reviews';
import type { VsCodeReviewHost } from '../approvals/reviewUi';
import { NEW_SESSION } from '../chat/model';
import type { ImageAttachment } from '../chat/messages';
import type { ChatStore } from '../chat/store';
import type { AgentConnection } from '../client/connection';
import { errorText } from '../client/connection';
import { trackAsk } from '../client/asks';
import {
  APPROVAL_ANSWER_OF,
  type ApprovalTitle,
  type AskParams,
  type AskStarted,
  COMMANDS,
  MODES,
  PLAN_ANSWER_OF,
  type PlanTitle,
  type Range,
  type SteerResult,
  type UndoResult,
} from '../protocol';
import { fixPrompt, pickProblem, selectedLines } from './problems';
import { sessionLabel, undoSummary } from './sessionLabels';

export type ReviewAction = 'apply' | 'reject' | 'pick' | 'diff';

export interface ActionDeps {
  connection: AgentConnection;
  store: ChatStore;
  broker: ApprovalBroker;
  plans: PlanPrompts;
  reviews: ReviewBroker;
  reviewHost: VsCodeReviewHost;
  revealChat: (focusInput?: boolean) => Promise<void>;
  log: vscode.LogOutputChannel;
}

export class Actions {
  constructor(private readonly deps: ActionDeps) {}

  private get currentSession(): string | undefined {
    const current = this.deps.store.state.current;
    return current === NEW_SESSION ? undefined : current;
  }

  /** Sends an ask in the chat's session; errors show in the chat. */
  async send(prompt: string, where: { uri?: vscode.Uri; range?: Range; images?: ImageAttachment[] } = {}): Promise<void> {
    const params: AskParams = { prompt, sessionId: this.currentSession };
    if (where.images?.length) {
      params.images = where.images.map((image) => ({ data: image.data, mimeType: image.mimeType, name: image.name }));
    }
    if (where.uri) {
      params.uri = where.uri.toString();
    }
    if (where.range) {
      params.range = where.range;
    }
    void this.deps.revealChat();
    try {
      await trackAsk(this.deps.store, params, () => this.deps.connection.command<AskStarted>(COMMANDS.ask, [params]));
    } catch (error) {
      this.deps.log.warn(`ask: ${errorText(error)}`);
    }
  }

  /**
   * Written while the chat's session runs: the person's words for the run, given to the
   * model at its next turn boundary. When no run goes on any more, it is sent as an ask.
   */
  async steer(prompt: string): Promise<void> {
    const sessionId = this.currentSession;
    if (sessionId === undefined) {
      await this.send(prompt);
      return;
    }
    const localId = this.deps.store.newLocalId();
    this.deps.store.dispatch({ type: 'steer_sent', localId, prompt, sessionId });
    try {
      const result = await this.deps.connection.command<SteerResult>(COMMANDS.steer, [{ sessionId, prompt }]);
      this.deps.store.dispatch({ type: 'steer_answered', localId, queued: result.queued });
      if (!result.queued) {
        await this.send(prompt);
      }
    } catch (error) {
      this.deps.store.dispatch({ type: 'steer_answered', localId, queued: false, message: `Not sent: ${errorText(error)}` });
    }
  }

  /** The chat's answer to a proposed plan: to the prompt that waits, else to the server's question. */
  async answerPlan(callId: string, title: PlanTitle): Promise<void> {
    if (this.deps.plans.answer(callId, title)) {
      return;
    }
    await this.answer(callId, PLAN_ANSWER_OF[title]);
  }

  async ask(): Promise<void> {
    const prompt = await askFor('Ask agentls', 'What should the agent do? (it can read the workspace, propose edits and run commands)');
    if (prompt) {
      const editor = vscode.window.activeTextEditor;
      await this.send(prompt, { uri: editor?.document.uri.scheme === 'file' ? editor.document.uri : undefined });
    }
  }

  async askAboutSelection(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showInformationMessage('agentls: open a file and select some code first.');
      return;
    }
    const selection = editor.selection;
    const range: Range = selection.isEmpty
      ? { start: { line: selection.active.line, character: 0 }, end: { line: selection.active.line, character: 0 } }
      : { start: selection.start, end: selection.end };
    const prompt = await askFor('Ask agentls about the selection', 'e.g. "explain this", "add error handling"');
    if (prompt) {
      const lines = selectedLines({ start: asPosition(range.start), end: asPosition(range.end) });
      const end = editor.document.lineAt(Math.min(lines.end.line, editor.document.lineCount - 1)).range.end;
      await this.send(prompt, {
        uri: editor.document.uri,
        range: { start: lines.start, end: lines.end.character === Number.MAX_SAFE_INTEGER ? asPosition(end) : lines.end },
      });
    }
  }

  async fixProblem(): Promise<void> {
    const editor = vscode.window.activeTextEditor;
    if (!editor) {
      void vscode.window.showInformationMessage('agentls: open a file with a problem first.');
      return;
    }
    const cursor = editor.selection.active;
    // agentls's own diagnostics are questions waiting for an answer, not problems to fix.
    const problems = vscode.languages.getDiagnostics(editor.document.uri).filter((d) => d.source !== 'agentls');
    const problem = pickProblem(problems.map(asProblem), {
      line: cursor.line,
      character: cursor.character,
    });
    if (!problem) {
      void vscode.window.showInformationMessage('agentls: no problem (diagnostic) at the cursor.');
      return;
    }
    const { prompt, range } = fixPrompt(problem, vscode.workspace.asRelativePath(editor.document.uri));
    await this.send(prompt, { uri: editor.document.uri, range });
  }

  async cancel(): Promise<void> {
    const running = this.deps.store.runningSessions();
    if (running.length === 0) {
      void vscode.window.showInformationMessage('agentls: nothing is running.');
      return;
    }
    let sessionId = running[0];
    if (running.length > 1) {
      const picked = await vscode.window.showQuickPick(
        running.map((id) => ({ label: this.deps.store.state.views[id]?.title || id, description: id, id })),
        { title: 'Cancel which run?' },
      );
      sessionId = picked?.id;
    }
    if (sessionId) {
      await this.run(() => this.deps.connection.command(COMMANDS.cancel, [{ sessionId }]));
    }
  }

  async answerApproval(callId: string, title: ApprovalTitle): Promise<void> {
    if (this.deps.broker.answer(callId, title)) {
      return;
    }
    // No prompt of ours waits: the question waits in the server (approvalsVia codeAction).
    await this.answer(callId, APPROVAL_ANSWER_OF[title]);
  }

  async answer(id: string, answer: string): Promise<void> {
    await this.run(() => this.deps.connection.command(COMMANDS.answer, [{ id, answer }]));
  }

  async showDiff(id: string): Promise<void> {
    await this.run(() => this.deps.connection.command(COMMANDS.showDiff, [{ id }]));
  }

  /** The answers to the edit waiting for review: the chat card's buttons, the diff's title bar, the palette. */
  async review(action: ReviewAction): Promise<void> {
    const review = this.deps.reviews.waiting;
    if (!review) {
      void vscode.window.showInformationMessage('agentls: no edit waits for review.');
      return;
    }
    if (action === 'diff') {
      await this.run(() => this.deps.reviewHost.showAgain(review));
      return;
    }
    this.deps.reviews.decide(action);
  }

  async showSessions(): Promise<void> {
    await this.deps.connection.refreshSessions();
    const transcript = { iconPath: new vscode.ThemeIcon('go-to-file'), tooltip: 'Open the transcript' };
    const items = this.deps.store.state.sessions.map((info) => ({ ...sessionLabel(info), info, buttons: [transcript] }));
    if (items.length === 0) {
      void vscode.window.showInformationMessage('agentls: no sessions yet in this workspace.');
      return;
    }
    const pick = vscode.window.createQuickPick<(typeof items)[number]>();
    pick.title = 'agentls sessions: pick one to continue it in the chat';
    pick.items = items;
    pick.matchOnDescription = true;
    pick.matchOnDetail = true;
    pick.onDidTriggerItemButton((event) => {
      pick.hide();
      void this.openTranscript(event.item.info.sessionId);
    });
    pick.onDidAccept(() => {
      const chosen = pick.selectedItems[0];
      pick.hide();
      if (chosen) {
        this.continueSession(chosen.info.sessionId);
      }
    });
    pick.onDidHide(() => pick.dispose());
    pick.show();
  }

  continueSession(sessionId: string): void {
    const info = this.deps.store.state.sessions.find((s) => s.sessionId === sessionId);
    this.deps.store.dispatch({ type: 'show_session', sessionId, info });
    void this.deps.revealChat(true);
  }

  newSession(): void {
    this.deps.store.dispatch({ type: 'show_session', sessionId: NEW_SESSION });
    void this.deps.revealChat(true);
  }

  async openTranscript(sessionId = this.currentSession): Promise<void> {
    await this.run(async () => {
      const result = await this.deps.connection.command<{ uri: string; shown: boolean }>(
        COMMANDS.showTranscript,
        [sessionId ? { sessionId } : {}],
      );
      if (!result.shown) {
        await vscode.window.showTextDocument(vscode.Uri.parse(result.uri), { preview: true });
      }
    });
  }

  async setMode(): Promise<void> {
    const sessionId = this.currentSession;
    const mode = await vscode.window.showQuickPick([...MODES], {
      title: sessionId ? 'agentls mode for this session' : 'agentls mode for new sessions (until the server restarts)',
    });
    if (mode) {
      await this.run(() => this.deps.connection.command(COMMANDS.setMode, [sessionId ? { mode, sessionId } : { mode }]));
    }
  }

  async undoLastTurn(): Promise<void> {
    if (!this.deps.connection.canUndo()) {
      void vscode.window.showInformationMessage('agentls: this server cannot undo yet (it does not offer agentls.undo).');
      return;
    }
    const sessionId = this.currentSession;
    if (!sessionId) {
      void vscode.window.showInformationMessage('agentls: no session to undo in.');
      return;
    }
    await this.run(async () => {
      const result = await this.deps.connection.command<UndoResult>(COMMANDS.undo, [{ sessionId }]);
      this.deps.store.dispatch({ type: 'notice', text: undoSummary(result), tone: result.conflicts.length > 0 ? 'error' : 'info' });
    });
  }

  async openFile(relative: string): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (folder) {
      await this.run(() => Promise.resolve(vscode.window.showTextDocument(vscode.Uri.joinPath(folder.uri, relative))));
    }
  }

  private async run(work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (error) {
      void vscode.window.showErrorMessage(`agentls: ${errorText(error)}`);
    }
  }
}

async function askFor(title: string, placeHolder: string): Promise<string | undefined> {
  const prompt = await vscode.window.showInputBox({ title, placeHolder, prompt: placeHolder, ignoreFocusOut: true });
  return prompt?.trim() ? prompt.trim() : undefined;
}

function asPosition(position: { line: number; character: number }): { line: number; character: number } {
  return { line: position.line, character: position.character };
}

function asProblem(diagnostic: vscode.Diagnostic): {
  message: string;
  range: Range;
  severity: number;
  source?: string;
  code?: string | number;
} {
  const code = typeof diagnostic.code === 'object' ? diagnostic.code.value : diagnostic.code;
  return {
    message: diagnostic.message,
    range: { start: asPosition(diagnostic.range.start), end: asPosition(diagnostic.range.end) },
    severity: diagnostic.severity,
    source: diagnostic.source,
    code,
  };
}
