// Draws chat items as DOM elements. Each item is rebuilt only when its data
// changed, so an open tool row stays open and focus survives streaming.
import type {
  ApprovalItem,
  ApprovalStatus,
  EditItem,
  PlanItem,
  ProposedPlanItem,
  ProposedPlanStatus,
  QuestionItem,
  RunEndItem,
  ShownItem,
  ThoughtItem,
  ToolItem,
  UserItem,
} from '../chat/model';
import type { FromWebview } from '../chat/messages';
import { APPROVAL_ACTIONS, PLAN_TITLES } from '../protocol';
import { runEndNumbers } from '../chat/numbers';
import { withoutToolName } from '../chat/activity';
import type { ReviewPhase } from '../approvals/reviews';
import { renderMarkdown } from './markdown';

export type Post = (message: FromWebview) => void;

const APPROVAL_OUTCOME: Record<ApprovalStatus, string> = {
  pending: 'Waiting for an answer',
  allow_once: 'Allowed once',
  allow_always: 'Always allowed',
  deny: 'Denied',
  timeout: 'No answer in time: denied',
  cancelled: 'The run ended first',
};

const PLAN_OUTCOME: Record<ProposedPlanStatus, string> = {
  pending: 'Waiting for you',
  default: 'Approved: the run goes on in default mode (edits reviewed)',
  'accept-edits': 'Approved: the run goes on in accept-edits mode',
  'keep-planning': 'Kept planning',
  ended: 'The run ended with the plan as its answer (no switch)',
};

const STEP_MARK = { pending: '○', in_progress: '◐', completed: '✓' } as const;

const STEER_NOTE = {
  queued: 'Sent while the agent works: it reads this at its next step',
  delivered: 'Read by the agent during the run',
  not_delivered: 'Not delivered: the run ended first',
} as const;

const REVIEW_HINT: Record<ReviewPhase, string> = {
  waiting: 'Waiting for you: the diff is open beside the chat. Apply it, or Reject it. Pick changes… applies only the hunks you tick.',
  picking: 'In the Refactor Preview, tick the changes to keep and press its Apply. Apply here takes all of it.',
  nothing_picked: 'Nothing was applied: no change was ticked in the Refactor Preview (or it was discarded). The edit still waits: Apply, Reject, or pick again.',
};

interface Rendered {
  signature: string;
  element: HTMLElement;
}

export class ItemList {
  private readonly rendered = new Map<string, Rendered>();

  constructor(
    private readonly root: HTMLElement,
    private readonly post: Post,
  ) {}

  update(items: ShownItem[]): void {
    const nearBottom = this.root.scrollHeight - this.root.scrollTop - this.root.clientHeight < 48;
    const keep = new Set<string>();
    let previous: HTMLElement | null = null;
    for (const item of items) {
      keep.add(item.id);
      const signature = JSON.stringify(item);
      let entry = this.rendered.get(item.id);
      if (!entry || entry.signature !== signature) {
        const element = this.build(item);
        if (entry) {
          carryOver(entry.element, element);
          entry.element.replaceWith(element);
        }
        entry = { signature, element };
        this.rendered.set(item.id, entry);
      }
      const expected: Element | null = previous ? previous.nextElementSibling : this.root.firstElementChild;
      if (expected !== entry.element) {
        this.root.insertBefore(entry.element, expected);
      }
      previous = entry.element;
    }
    for (const [id, entry] of this.rendered) {
      if (!keep.has(id)) {
        entry.element.remove();
        this.rendered.delete(id);
      }
    }
    if (nearBottom) {
      this.root.scrollTop = this.root.scrollHeight;
    }
  }

  private build(item: ShownItem): HTMLElement {
    const element = this.buildItem(item);
    if (item.rewound) {
      element.classList.add('rewound');
      element.title = 'Taken back by a rewind: the model no longer sees this';
    }
    return element;
  }

  private buildItem(item: ShownItem): HTMLElement {
    switch (item.type) {
      case 'user':
        return this.user(item);
      case 'answer': {
        const box = el('div', 'item answer markdown');
        box.innerHTML = renderMarkdown(item.markdown); // markdown-it with html off: escaped
        return box;
      }
      case 'thought':
        return thought(item);
      case 'tool':
        return this.tool(item);
      case 'approval':
        return this.approval(item);
      case 'question':
        return this.question(item);
      case 'edit':
        return this.edit(item);
      case 'plan':
        return plan(item);
      case 'proposed_plan':
        return this.proposedPlan(item);
      case 'run_end':
        return runEnd(item);
      case 'notice':
        return el('div', `item notice ${item.tone}`, item.text);
    }
  }

  private user(item: UserItem & { editable?: boolean }): HTMLElement {
    const box = el('div', `item user${item.pending ? ' pending' : ''}${item.steer ? ` steer ${item.steer}` : ''}`);
    const head = el('div', 'who', 'You');
    const text = el('div', 'text', item.text);
    box.append(head, text);
    if (item.context) {
      box.append(el('div', 'context', item.context));
    }
    if (item.steer) {
      box.append(el('div', 'context', STEER_NOTE[item.steer]));
    }
    const runId = item.runId;
    if (item.editable && runId) {
      const edit = button('Edit', true, () => {
        edit.hidden = true;
        this.editPrompt(box, text, runId, item.text, () => {
          edit.hidden = false;
        });
      });
      edit.classList.add('edit');
      edit.title = 'Edit this prompt and ask again: the session is first rewound to it (you confirm what that undoes)';
      head.append(edit);
    }
    return box;
  }

  /** The prompt's text as an editor in place; Send posts it, Cancel puts the text back. */
  private editPrompt(box: HTMLElement, text: HTMLElement, runId: string, original: string, done: () => void): void {
    const area = el('textarea', 'edit-prompt');
    area.value = original;
    area.rows = Math.min(10, Math.max(2, original.split('\n').length));
    area.setAttribute('aria-label', 'The edited prompt');
    const close = (): void => {
      editor.replaceWith(text);
      done();
    };
    const send = (): void => {
      const prompt = area.value.trim();
      if (prompt) {
        this.post({ type: 'editAsk', runId, prompt });
      }
      close();
    };
    area.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        send();
      } else if (event.key === 'Escape') {
        event.preventDefault();
        close();
      }
    });
    const buttons = el('div', 'buttons');
    buttons.append(button('Send', false, send), button('Cancel', true, close));
    const editor = el('div', 'editing');
    editor.append(area, buttons);
    text.replaceWith(editor);
    area.focus();
    box.scrollIntoView({ block: 'nearest' });
  }

  private tool(item: ToolItem): HTMLElement {
    const box = el('details', `item tool ${item.status}`);
    const summary = el('summary');
    const state = { running: 'running', ok: 'done', failed: 'failed' }[item.status];
    const what = el('span', 'summary', withoutToolName(item.summary, item.name));
    what.title = item.summary;
    summary.append(el('span', 'icon', { running: '◌', ok: '✓', failed: '✗' }[item.status]), el('span', 'name', item.name), what, el('span', 'state', state));
    // Why it failed goes on a line of its own, so the file or command above it shows whole.
    if (item.status === 'failed' && item.error) {
      summary.append(el('span', 'error', item.error));
    }
    summary.setAttribute('aria-label', `${item.name} ${item.summary}: ${item.error ? `${state}: ${item.error}` : state}`);
    box.append(summary, el('pre', 'body', item.line || (item.status === 'running' ? 'running…' : '(no output)')));
    return box;
  }

  private approval(item: ApprovalItem): HTMLElement {
    if (item.status !== 'pending') {
      return answeredApproval(item);
    }
    const box = el('section', 'item approval pending');
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', `Approval: ${item.tool} ${item.summary}`);
    const heading = item.tool === 'run_command' ? 'Run this command?' : `Allow ${item.tool}: ${item.summary}?`;
    box.append(el('div', 'title', heading), el('pre', 'detail', item.detail || item.summary));
    if (item.rule) {
      box.append(el('div', 'rule', `Always allow adds the rule ${item.rule}`));
    }
    if (item.via === 'modal') {
      box.append(el('div', 'hint', 'Answer in the dialog.'));
    }
    const buttons = el('div', 'buttons');
    if (item.via === 'question') {
      for (const option of item.answers) {
        buttons.append(button(option.title.split(':')[0] ?? option.title, option.answer !== 'allow_once', () => this.post({ type: 'answer', id: item.callId, answer: option.answer })));
      }
    } else {
      // Always allow only where there is a rule to add (the server offers it only then).
      for (const title of APPROVAL_ACTIONS.filter((t) => t !== 'Always allow' || item.rule)) {
        buttons.append(button(title, title !== 'Allow once', () => this.post({ type: 'approve', callId: item.callId, title })));
      }
    }
    box.append(buttons);
    return box;
  }

  private question(item: QuestionItem): HTMLElement {
    const box = el('section', `item question ${item.status === 'pending' ? 'pending' : 'answered'}`);
    box.setAttribute('role', 'group');
    const heading = { review: 'Review', approval: 'Approve', plan: 'Plan' }[item.question];
    box.setAttribute('aria-label', `${item.question === 'review' ? 'Review' : 'Approval'}: ${item.summary}`);
    box.append(el('div', 'title', `${heading}: ${item.summary}`));
    if (item.detail) {
      const diff = el('details', 'diff');
      diff.append(el('summary', '', item.question === 'review' ? 'Diff' : 'Details'), el('pre', 'detail', item.detail));
      diff.open = item.status === 'pending';
      box.append(diff);
    }
    if (item.status !== 'pending') {
      box.append(el('div', 'outcome', `Answered: ${item.status}`));
      return box;
    }
    const buttons = el('div', 'buttons');
    for (const option of item.answers) {
      const title = option.title.split(':')[0] ?? option.title;
      buttons.append(button(title, option.answer === 'reject' || option.answer === 'deny', () => this.post({ type: 'answer', id: item.questionId, answer: option.answer })));
    }
    if (item.question === 'review') {
      buttons.append(button('Show diff', true, () => this.post({ type: 'showDiff', id: item.questionId })));
    }
    box.append(buttons);
    return box;
  }

  private proposedPlan(item: ProposedPlanItem): HTMLElement {
    const pending = item.status === 'pending';
    const box = el('section', `item proposed-plan ${pending ? 'pending' : 'answered'}`);
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', 'Proposed plan');
    const body = el('div', 'markdown');
    body.innerHTML = renderMarkdown(item.markdown); // markdown-it with html off: escaped
    box.append(el('div', 'title', 'Proposed plan'), body);
    if (!pending) {
      box.append(el('div', 'outcome', PLAN_OUTCOME[item.status]));
      return box;
    }
    const buttons = el('div', 'buttons');
    if (item.answers.length > 0) {
      // The question waits in the server (code actions): answered by agentls.answer.
      for (const option of item.answers) {
        const title = option.title.split(':')[0] ?? option.title;
        buttons.append(button(title, option.answer === 'keep-planning', () => this.post({ type: 'answer', id: item.callId, answer: option.answer })));
      }
    } else {
      for (const title of PLAN_TITLES) {
        buttons.append(button(title, title === 'Keep planning', () => this.post({ type: 'planAnswer', callId: item.callId, title })));
      }
    }
    box.append(buttons, el('div', 'hint', 'To keep planning with a note, choose Keep planning and write the note below.'));
    return box;
  }

  private edit(item: EditItem): HTMLElement {
    const box = el('section', `item edit ${item.status}`);
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', `Edit ${item.path}: ${item.status}`);
    const file = button(item.path, true, () => this.post({ type: 'openFile', path: item.path }));
    file.classList.add('link');
    file.title = `Open ${item.path}`;
    const title = el('div', 'title');
    title.append('✎ ', file);
    box.append(title, el('div', 'summary', item.summary));
    if (item.status === 'proposed' && item.review) {
      box.classList.add('pending');
      box.append(el('div', 'hint', REVIEW_HINT[item.phase ?? 'waiting']));
      const buttons = el('div', 'buttons');
      buttons.append(
        button('Apply', false, () => this.post({ type: 'review', action: 'apply' })),
        button('Reject', true, () => this.post({ type: 'review', action: 'reject' })),
        button('Pick changes…', true, () => this.post({ type: 'review', action: 'pick' })),
        button('Show diff', true, () => this.post({ type: 'review', action: 'diff' })),
      );
      box.append(buttons);
    } else if (item.status === 'proposed') {
      box.append(el('div', 'hint', 'Applying…'));
    } else if (item.status === 'applied') {
      box.append(el('div', 'outcome', item.changed ? 'Applied, with your changes' : 'Applied'));
    } else {
      box.append(el('div', 'outcome', `Rejected${item.reason ? `: ${item.reason}` : ''}`));
    }
    return box;
  }
}

/** An answered approval shrinks to one line; the command stays one click away. */
function answeredApproval(item: ApprovalItem): HTMLElement {
  const box = el('details', `item approval answered ${item.status}`);
  const said = APPROVAL_OUTCOME[item.status];
  const line = el('summary');
  line.append(el('span', 'outcome', item.ruleAdded ? `${said} (rule ${item.ruleAdded} added)` : said), el('span', 'summary', `: ${withoutToolName(item.summary, item.tool)}`));
  box.append(line, el('pre', 'detail', item.detail || item.summary));
  return box;
}

/** Thinking, collapsed: one click opens it (and it stays open while more streams in). */
function thought(item: ThoughtItem): HTMLElement {
  const box = el('details', 'item thought');
  box.append(el('summary', '', 'Thinking'), el('pre', 'body', item.text));
  return box;
}

/** The model's checklist: one line per step, the one in progress marked. */
function plan(item: PlanItem): HTMLElement {
  const done = item.steps.filter((step) => step.status === 'completed').length;
  const box = el('section', 'item plan');
  box.setAttribute('aria-label', `Plan: ${done} of ${item.steps.length} steps done`);
  box.append(el('div', 'title', `Plan (${done}/${item.steps.length})`));
  const list = el('ul', 'checklist');
  for (const step of item.steps) {
    const line = el('li', step.status.replace('_', '-'));
    line.append(el('span', 'mark', STEP_MARK[step.status]), document.createTextNode(` ${step.step}`));
    list.append(line);
  }
  box.append(list);
  if (item.explanation) {
    box.append(el('div', 'hint', item.explanation));
  }
  return box;
}

function runEnd(item: RunEndItem): HTMLElement {
  const box = el('div', `item run-end ${item.reason === 'completed' ? 'ok' : 'stopped'}`);
  box.append(el('span', 'reason', item.reason.replace(/_/g, ' ')), el('span', 'numbers', runEndNumbers(item.turns, item.usage)));
  if (item.reason !== 'completed' && item.detail) {
    box.append(el('div', 'detail', item.detail));
  }
  return box;
}

function carryOver(from: HTMLElement, to: HTMLElement): void {
  if (from instanceof HTMLDetailsElement && to instanceof HTMLDetailsElement) {
    to.open = from.open;
  }
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className = '', text?: string): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (className) {
    element.className = className;
  }
  if (text !== undefined) {
    element.textContent = text;
  }
  return element;
}

function button(title: string, secondary: boolean, onClick: () => void): HTMLButtonElement {
  const element = el('button', secondary ? 'secondary' : '', title);
  element.type = 'button';
  element.addEventListener('click', onClick);
  return element;
}
