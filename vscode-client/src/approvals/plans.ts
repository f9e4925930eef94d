// Answers the server's prompt about a proposed plan (window/showMessageRequest with
// the actions `Switch to default`, `Switch to accept-edits`, `Keep planning`): a
// notification, and the chat view's plan card with the same buttons; the first
// answer wins. The UI is injected, so this runs in tests as is.
import type { ProposedPlanItem } from '../chat/model';
import { PLAN_TITLES, type PlanTitle } from '../protocol';
import type { ApprovalUi } from './broker';
import type { MessageRequest } from './prompt';

export function isPlanRequest(params: MessageRequest): boolean {
  const titles = (params.actions ?? []).map((a) => a.title);
  return titles.length === PLAN_TITLES.length && PLAN_TITLES.every((t, i) => titles[i] === t);
}

export interface PlanPromptContext {
  ui: Pick<ApprovalUi, 'notify'>;
  pending: () => ProposedPlanItem[];
}

export class PlanPrompts {
  private readonly inline = new Map<string, (title: PlanTitle) => void>();

  constructor(private readonly context: PlanPromptContext) {}

  /** `{title}`, or null when dismissed (the server then keeps planning, and ends the run). */
  async ask(params: MessageRequest): Promise<{ title: string } | null> {
    // The plan_proposed event comes just before its prompt: the newest pending card.
    const pending = this.context.pending();
    const item = pending[pending.length - 1];
    let fromChat: Promise<PlanTitle> | undefined;
    if (item) {
      const callId = item.callId;
      fromChat = new Promise<PlanTitle>((resolve) => this.inline.set(callId, resolve));
    }
    const message = item ? 'agentls proposes a plan (shown in the chat): start on it, or keep planning?' : params.message;
    const shown = this.context.ui.notify(message, PLAN_TITLES);
    try {
      const title = await (fromChat ? Promise.race([shown, fromChat]) : shown);
      return title && (PLAN_TITLES as readonly string[]).includes(title) ? { title } : null;
    } finally {
      if (item) {
        this.inline.delete(item.callId);
      }
    }
  }

  /** An answer from the chat view; false when no prompt waits for that plan. */
  answer(callId: string, title: PlanTitle): boolean {
    const resolve = this.inline.get(callId);
    if (!resolve) {
      return false;
    }
    resolve(title);
    return true;
  }
}
