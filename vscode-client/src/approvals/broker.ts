// Answers the server's approval prompts: a modal dialog for commands, a
// notification otherwise, and in both cases the chat view's inline buttons;
// the first answer wins. The UI is injected, so this runs in tests as is.
import type { ApprovalItem } from '../chat/model';
import type { ApprovalTitle } from '../protocol';
import type { ModalApprovals } from '../settings/serverSettings';
import { approvalTitles, dialogText, matchPending, type MessageRequest, parseApprovalMessage, shouldBeModal } from './prompt';

export interface ApprovalUi {
  /** A modal dialog; undefined when dismissed (Cancel or Escape). */
  modal(message: string, detail: string, titles: readonly string[]): Promise<string | undefined>;
  /** A notification with buttons; undefined when closed. */
  notify(message: string, titles: readonly string[]): Promise<string | undefined>;
}

export interface BrokerContext {
  ui: ApprovalUi;
  pending: () => ApprovalItem[];
  modalSetting: () => ModalApprovals;
  /** Tells the chat view how the person is being asked. */
  prompted: (callId: string, via: 'prompt' | 'modal') => void;
}

export class ApprovalBroker {
  private readonly inline = new Map<string, (title: ApprovalTitle) => void>();

  constructor(private readonly context: BrokerContext) {}

  /** Handles one window/showMessageRequest that is an approval: `{title}` or null (dismissed = Deny). */
  async ask(params: MessageRequest): Promise<{ title: string } | null> {
    const parsed = parseApprovalMessage(params.message);
    const item = matchPending(this.context.pending(), parsed);
    const tool = item?.tool || parsed.tool;
    const modal = shouldBeModal(tool, this.context.modalSetting());
    if (item) {
      this.context.prompted(item.callId, modal ? 'modal' : 'prompt');
    }
    let fromChat: Promise<string> | undefined;
    if (item) {
      const callId = item.callId;
      fromChat = new Promise<string>((resolve) => this.inline.set(callId, resolve));
    }
    const text = dialogText(parsed, item);
    const titles: readonly string[] = approvalTitles(params) ?? [];
    const shown = modal
      ? this.context.ui.modal(text.message, text.detail, titles)
      : this.context.ui.notify(params.message, titles);
    try {
      const title = await (fromChat ? Promise.race([shown, fromChat]) : shown);
      return title && titles.includes(title) ? { title } : null;
    } finally {
      if (item) {
        this.inline.delete(item.callId);
      }
    }
  }

  /** An answer from the chat view; false when no prompt waits for that call. */
  answer(callId: string, title: ApprovalTitle): boolean {
    const resolve = this.inline.get(callId);
    if (!resolve) {
      return false;
    }
    resolve(title);
    return true;
  }

  waiting(callId: string): boolean {
    return this.inline.has(callId);
  }
}
