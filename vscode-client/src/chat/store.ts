// The one chat state of the window, with listeners (chat view, status bar,
// context keys). No vscode: the tests dispatch to it directly.
import { type ApprovalItem, type ChatState, initialState, pendingApprovals, pendingPlans, type ProposedPlanItem } from './model';
import { type ChatAction, reduce } from './reducer';

export type Listener = (state: ChatState) => void;

export class ChatStore {
  private value: ChatState = initialState();
  private readonly listeners = new Set<Listener>();
  private localIds = 0;

  get state(): ChatState {
    return this.value;
  }

  dispatch(action: ChatAction): void {
    this.value = reduce(this.value, action);
    for (const listener of this.listeners) {
      try {
        listener(this.value);
      } catch (error) {
        console.error('agentls: a chat listener failed', error);
      }
    }
  }

  subscribe(listener: Listener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  newLocalId(): string {
    this.localIds += 1;
    return `ask-${this.localIds}`;
  }

  /** Pending approvals of every session, oldest first. */
  pendingApprovals(): ApprovalItem[] {
    return Object.values(this.value.views).flatMap(pendingApprovals);
  }

  /** Plans waiting for the person's word, in every session, oldest first. */
  pendingPlans(): ProposedPlanItem[] {
    return Object.values(this.value.views).flatMap(pendingPlans);
  }

  /** Session ids with a run going on, the one on screen first. */
  runningSessions(): string[] {
    const views = Object.values(this.value.views).filter((view) => view.runningRunId !== null);
    views.sort((a, b) => Number(b.sessionId === this.value.current) - Number(a.sessionId === this.value.current));
    return views.map((view) => view.sessionId);
  }
}
