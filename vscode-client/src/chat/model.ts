// What the chat view shows, as plain data: the reducer builds it from the
// server's events, the webview draws it. No vscode here.
import type { ReviewPhase } from '../approvals/reviews';
import type { AnswerOption, Budget, PlanStep, PromptCommandInfo, SessionInfo, Usage } from '../protocol';

export interface UserItem {
  type: 'user';
  id: string;
  runId?: string;
  text: string;
  /** e.g. "greet.py:3-9", what was attached to the prompt. */
  context?: string;
  /** Sent, not yet answered by the server. */
  pending: boolean;
  /**
   * Sent while a run worked (agentls.steer): `queued` until the run's next turn boundary
   * gives it to the model (`delivered`), or `not_delivered` when the run ended first.
   */
  steer?: 'queued' | 'delivered' | 'not_delivered';
}

export interface AnswerItem {
  type: 'answer';
  id: string;
  runId: string;
  markdown: string;
}

/** The model's thinking, shown collapsed apart from the answer. */
export interface ThoughtItem {
  type: 'thought';
  id: string;
  runId: string;
  text: string;
}

export interface ToolItem {
  type: 'tool';
  id: string;
  runId: string;
  callId: string;
  name: string;
  summary: string;
  status: 'running' | 'ok' | 'failed';
  error: string | null;
  line: string;
}

export type ApprovalStatus = 'pending' | 'allow_once' | 'allow_always' | 'deny' | 'timeout' | 'cancelled';

export interface ApprovalItem {
  type: 'approval';
  id: string;
  runId: string;
  callId: string;
  tool: string;
  summary: string;
  detail: string;
  rule: string;
  status: ApprovalStatus;
  /** How the person is being asked: a notification, a modal dialog, or code actions (`question`). */
  via: 'prompt' | 'modal' | 'question' | null;
  /** The answers a waiting question offers (when via is `question`). */
  answers: AnswerOption[];
  ruleAdded: string | null;
}

/** The model's checklist (update_plan): one per run, each update replaces its steps. */
export interface PlanItem {
  type: 'plan';
  id: string;
  runId: string;
  steps: PlanStep[];
  explanation: string;
}

export type ProposedPlanStatus = 'pending' | 'default' | 'accept-edits' | 'keep-planning' | 'ended';

/** A plan put to the person in plan mode (propose_plan): switch mode, or keep planning. */
export interface ProposedPlanItem {
  type: 'proposed_plan';
  id: string;
  runId: string;
  callId: string;
  markdown: string;
  status: ProposedPlanStatus;
  /** Set when the question waits as code actions: its answers go by agentls.answer. */
  answers: AnswerOption[];
}

export interface QuestionItem {
  type: 'question';
  id: string;
  runId: string;
  questionId: string;
  question: 'approval' | 'review' | 'plan';
  summary: string;
  detail: string;
  path?: string;
  answers: AnswerOption[];
  /** `pending`, or the answer it closed with (`apply`, `reject`, `timeout`, `cancelled`, …). */
  status: string;
}

export interface EditItem {
  type: 'edit';
  id: string;
  runId: string;
  path: string;
  summary: string;
  status: 'proposed' | 'applied' | 'rejected';
  /** True when the person reviews it in VS Code (this client's Apply / Reject / Pick changes). */
  review: boolean;
  /** Where the review stands while it waits (set by the client, not the server). */
  phase?: ReviewPhase;
  reason?: string;
  changed?: boolean;
}

export interface RunEndItem {
  type: 'run_end';
  id: string;
  runId: string;
  reason: string;
  detail: string;
  usage: Usage;
  turns?: number;
  budget?: Budget;
}

export interface NoticeItem {
  type: 'notice';
  id: string;
  text: string;
  tone: 'info' | 'error';
}

export type ChatItem =
  | UserItem
  | AnswerItem
  | ThoughtItem
  | ToolItem
  | ApprovalItem
  | QuestionItem
  | EditItem
  | PlanItem
  | ProposedPlanItem
  | RunEndItem
  | NoticeItem;

/**
 * An item as the chat view draws it: struck through when a rewind took its run back;
 * a prompt of the person's that may be edited and sent again (a finished run still in
 * the conversation, no run going).
 */
export type ShownItem = ChatItem & { rewound?: boolean; editable?: boolean };

/** Token and cost totals; cost stays unknown once any part of it was. */
export interface Totals {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  costUnknown: boolean;
}

export const NO_TOTALS: Totals = { inputTokens: 0, outputTokens: 0, costUsd: 0, costUnknown: false };

/** The key of the view for a session not started yet. */
export const NEW_SESSION = '';

export interface SessionView {
  sessionId: string;
  title: string;
  items: ChatItem[];
  runningRunId: string | null;
  /** The running run's usage so far. */
  runUsage: Usage | null;
  /** Finished runs; their cost is the session list's once it lists the session. */
  done: Totals;
  /** Runs a rewind took back: shown struck through, the model no longer sees them. */
  rewoundRuns: string[];
}

export type ServerState = 'starting' | 'running' | 'stopped' | 'failed';

export interface ChatState {
  current: string;
  views: Record<string, SessionView>;
  sessions: SessionInfo[];
  /** The prompt commands the server lists (`/name` in an ask). */
  commands: PromptCommandInfo[];
  server: { state: ServerState; message: string };
  nextId: number;
}

export function emptyView(sessionId: string, title = ''): SessionView {
  return { sessionId, title, items: [], runningRunId: null, runUsage: null, done: NO_TOTALS, rewoundRuns: [] };
}

export function initialState(): ChatState {
  return {
    current: NEW_SESSION,
    views: { [NEW_SESSION]: emptyView(NEW_SESSION) },
    sessions: [],
    commands: [],
    server: { state: 'starting', message: '' },
    nextId: 1,
  };
}

export function addUsage(totals: Totals, usage: Usage): Totals {
  return {
    inputTokens: totals.inputTokens + usage.inputTokens,
    outputTokens: totals.outputTokens + usage.outputTokens,
    costUsd: totals.costUsd + (usage.costUsd ?? 0),
    costUnknown: totals.costUnknown || usage.costUsd === null,
  };
}

/** The session's totals so far, the running run included. */
export function sessionTotals(view: SessionView): Totals {
  return view.runUsage ? addUsage(view.done, view.runUsage) : view.done;
}

export function pendingPlans(view: SessionView): ProposedPlanItem[] {
  return view.items.filter((item): item is ProposedPlanItem => item.type === 'proposed_plan' && item.status === 'pending');
}

export function pendingApprovals(view: SessionView): ApprovalItem[] {
  return view.items.filter((item): item is ApprovalItem => item.type === 'approval' && item.status === 'pending');
}

/**
 * Whether every one of these edit cards has had its answer: applied, rejected
 * (a no, the server's timeout) or closed by the end of its run. False when
 * none of them is known.
 */
export function editsSettled(state: ChatState, ids: readonly string[]): boolean {
  const wanted = new Set(ids);
  const cards = Object.values(state.views).flatMap((view) => view.items.filter((item) => wanted.has(item.id)));
  return cards.length > 0 && cards.every((card) => card.type === 'edit' && card.status !== 'proposed');
}
