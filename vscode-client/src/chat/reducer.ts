// Folds the server's `agentls/event` notifications and the client's own
// actions into the chat state. Pure: the same inputs give the same state, so
// the tests drive it with recorded event sequences.
import type { ReviewPhase } from '../approvals/reviews';
import type { AgentEvent, PromptCommandInfo, SessionInfo, Usage } from '../protocol';
import {
  addUsage,
  type ApprovalStatus,
  type ChatItem,
  type ChatState,
  type EditItem,
  emptyView,
  NEW_SESSION,
  NO_TOTALS,
  type ServerState,
  type SessionView,
  type ToolItem,
  type Totals,
} from './model';

export type ChatAction =
  | { type: 'event'; event: AgentEvent }
  /** The person asked; `sessionId` is NEW_SESSION for a new session. */
  | { type: 'ask_sent'; localId: string; prompt: string; sessionId: string; context?: string }
  | { type: 'ask_started'; localId: string; sessionId: string; runId: string }
  | { type: 'ask_failed'; localId: string; message: string }
  /** The person wrote while the session's run works: it goes to the run (agentls.steer). */
  | { type: 'steer_sent'; localId: string; prompt: string; sessionId: string }
  /** The server's answer: queued for the run, or not (no run went on: it is sent as an ask). */
  | { type: 'steer_answered'; localId: string; queued: boolean; message?: string }
  | { type: 'show_session'; sessionId: string; info?: SessionInfo }
  | { type: 'sessions_listed'; sessions: SessionInfo[] }
  | { type: 'commands_listed'; commands: PromptCommandInfo[] }
  | { type: 'server'; state: ServerState; message?: string }
  | { type: 'approval_prompted'; callId: string; via: 'prompt' | 'modal' }
  /** The edit cards `ids` are one review, now in `phase`. */
  | { type: 'review_phase'; ids: string[]; phase: ReviewPhase }
  | { type: 'notice'; text: string; tone: 'info' | 'error' }
  /** A rewind took these runs of the session back (agentls.rewind's `runs`). */
  | { type: 'rewound'; sessionId: string; runs: string[] };

export function reduce(state: ChatState, action: ChatAction): ChatState {
  switch (action.type) {
    case 'event':
      return onEvent(state, action.event);
    case 'ask_sent':
      return onAskSent(state, action);
    case 'ask_started':
      return onAskStarted(state, action);
    case 'ask_failed':
      return onAskFailed(state, action);
    case 'steer_sent':
      return mapView(state, action.sessionId, (view) =>
        push(view, { type: 'user', id: action.localId, runId: view.runningRunId ?? undefined, text: action.prompt, pending: true, steer: 'queued' }),
      );
    case 'steer_answered':
      return onSteerAnswered(state, action);
    case 'show_session':
      return onShowSession(state, action.sessionId, action.info);
    case 'sessions_listed':
      return withListedCosts({ ...state, sessions: action.sessions });
    case 'commands_listed':
      return { ...state, commands: action.commands };
    case 'server':
      return { ...state, server: { state: action.state, message: action.message ?? '' } };
    case 'approval_prompted': {
      const views: Record<string, SessionView> = {};
      for (const [key, view] of Object.entries(state.views)) {
        views[key] = updateItems(view, (item) =>
          item.type === 'approval' && item.callId === action.callId && item.status === 'pending'
            ? { ...item, via: action.via }
            : item,
        );
      }
      return { ...state, views };
    }
    case 'review_phase': {
      const ids = new Set(action.ids);
      const views: Record<string, SessionView> = {};
      for (const [key, view] of Object.entries(state.views)) {
        views[key] = updateItems(view, (item) =>
          item.type === 'edit' && ids.has(item.id) && item.status === 'proposed' ? { ...item, phase: action.phase } : item,
        );
      }
      return { ...state, views };
    }
    case 'rewound':
      return mapView(state, action.sessionId, (view) => ({
        ...view,
        rewoundRuns: [...view.rewoundRuns, ...action.runs.filter((run) => !view.rewoundRuns.includes(run))],
      }));
    case 'notice': {
      const [id, next] = newId(state, 'notice');
      return mapView(next, next.current, (view) => push(view, { type: 'notice', id, text: action.text, tone: action.tone }));
    }
  }
}

/**
 * The session list is the one source of a session's cost: a view between runs
 * takes its finished runs' cost from it (the tokens stay the events' sums).
 */
function withListedCosts(state: ChatState): ChatState {
  let views = state.views;
  for (const info of state.sessions) {
    const view = views[info.sessionId];
    if (view && view.runningRunId === null) {
      views = { ...views, [info.sessionId]: { ...view, done: { ...view.done, ...listedCost(info) } } };
    }
  }
  return views === state.views ? state : { ...state, views };
}

function listedCost(info: SessionInfo): Pick<Totals, 'costUsd' | 'costUnknown'> {
  return { costUsd: info.costUsd ?? 0, costUnknown: info.costUsd === null && info.runs > 0 };
}

function newId(state: ChatState, prefix: string): [string, ChatState] {
  return [`${prefix}-${state.nextId}`, { ...state, nextId: state.nextId + 1 }];
}

function viewOf(state: ChatState, sessionId: string): SessionView {
  return state.views[sessionId] ?? emptyView(sessionId);
}

function mapView(state: ChatState, sessionId: string, change: (view: SessionView) => SessionView): ChatState {
  return { ...state, views: { ...state.views, [sessionId]: change(viewOf(state, sessionId)) } };
}

function push(view: SessionView, item: ChatItem): SessionView {
  return { ...view, items: [...view.items, item] };
}

function updateItems(view: SessionView, change: (item: ChatItem) => ChatItem): SessionView {
  return { ...view, items: view.items.map(change) };
}

/** Replace the last item that matches, or append `fallback` when none does. */
function updateLast<T extends ChatItem>(
  view: SessionView,
  matches: (item: ChatItem) => item is T,
  change: (item: T) => T,
  fallback?: ChatItem,
): SessionView {
  for (let i = view.items.length - 1; i >= 0; i--) {
    const item = view.items[i];
    if (item !== undefined && matches(item)) {
      const items = view.items.slice();
      items[i] = change(item);
      return { ...view, items };
    }
  }
  return fallback ? push(view, fallback) : view;
}

function onAskSent(state: ChatState, action: Extract<ChatAction, { type: 'ask_sent' }>): ChatState {
  const title = viewOf(state, action.sessionId).title || firstLine(action.prompt);
  const next = mapView(state, action.sessionId, (view) =>
    push(
      { ...view, title },
      { type: 'user', id: action.localId, text: action.prompt, context: action.context, pending: true },
    ),
  );
  return { ...next, current: action.sessionId };
}

function onAskStarted(state: ChatState, action: Extract<ChatAction, { type: 'ask_started' }>): ChatState {
  let sent: ChatItem | undefined;
  let from: string | undefined;
  for (const [key, view] of Object.entries(state.views)) {
    sent = view.items.find((item) => item.id === action.localId);
    if (sent) {
      from = key;
      break;
    }
  }
  let next = state;
  if (from !== undefined) {
    // A new session's prompt moves from the placeholder view to the real one.
    next = mapView(next, from, (view) => ({ ...view, items: view.items.filter((i) => i.id !== action.localId) }));
    if (from === NEW_SESSION) {
      next = { ...next, views: { ...next.views, [NEW_SESSION]: emptyView(NEW_SESSION) } };
    }
  }
  const user: ChatItem =
    sent && sent.type === 'user'
      ? { ...sent, runId: action.runId, pending: false }
      : { type: 'user', id: action.localId, runId: action.runId, text: '', pending: false };
  next = mapView(next, action.sessionId, (view) => {
    // Events of the run may have come before the answer to the ask: the prompt goes first.
    const at = view.items.findIndex((item) => 'runId' in item && item.runId === action.runId);
    const items = view.items.slice();
    items.splice(at < 0 ? items.length : at, 0, user);
    const finished = view.items.some((item) => item.type === 'run_end' && item.runId === action.runId);
    const title = view.title || (user.type === 'user' ? firstLine(user.text) : '');
    return { ...view, title, items, runningRunId: finished ? view.runningRunId : action.runId };
  });
  return { ...next, current: action.sessionId };
}

function onAskFailed(state: ChatState, action: Extract<ChatAction, { type: 'ask_failed' }>): ChatState {
  const [id, next] = newId(state, 'notice');
  for (const [key, view] of Object.entries(next.views)) {
    const at = view.items.findIndex((item) => item.id === action.localId);
    if (at >= 0) {
      return mapView(next, key, (v) => {
        const items = v.items.map((item) => (item.id === action.localId && item.type === 'user' ? { ...item, pending: false } : item));
        items.splice(at + 1, 0, { type: 'notice', id, text: action.message, tone: 'error' });
        return { ...v, items };
      });
    }
  }
  return mapView(next, next.current, (view) => push(view, { type: 'notice', id, text: action.message, tone: 'error' }));
}

function onSteerAnswered(state: ChatState, action: Extract<ChatAction, { type: 'steer_answered' }>): ChatState {
  const views: Record<string, SessionView> = {};
  let notice: string | undefined;
  for (const [key, view] of Object.entries(state.views)) {
    const mine = view.items.find((item) => item.id === action.localId);
    if (!mine || action.queued) {
      views[key] = view;
      continue;
    }
    // Not queued: the message goes as an ask of its own (its item comes with it), or failed.
    views[key] = { ...view, items: view.items.filter((item) => item.id !== action.localId) };
    notice = action.message;
  }
  const next = { ...state, views };
  if (notice === undefined) {
    return next;
  }
  const [id, withId] = newId(next, 'notice');
  return mapView(withId, withId.current, (view) => push(view, { type: 'notice', id, text: notice, tone: 'error' }));
}

function onShowSession(state: ChatState, sessionId: string, info?: SessionInfo): ChatState {
  if (state.views[sessionId] !== undefined || sessionId === NEW_SESSION) {
    return { ...state, current: sessionId, views: { ...state.views, [sessionId]: viewOf(state, sessionId) } };
  }
  const [id, next] = newId(state, 'notice');
  const view = emptyView(sessionId, info?.firstPrompt ?? '');
  const earlier = info ? `${info.runs} earlier run${info.runs === 1 ? '' : 's'}` : 'earlier runs';
  const text = `Continuing session ${sessionId} (${earlier}; the transcript has them). Ask to go on.`;
  view.items = [{ type: 'notice', id, text, tone: 'info' }];
  // Tokens of earlier runs are not in the session list; their cost is.
  view.done = info ? { ...NO_TOTALS, ...listedCost(info) } : NO_TOTALS;
  return { ...next, current: sessionId, views: { ...next.views, [sessionId]: view } };
}

function onEvent(state: ChatState, event: AgentEvent): ChatState {
  if (event.kind === 'process') {
    // A background process may end after its run, or between runs: a line of its own,
    // never a run to follow.
    const [id, next] = newId(state, 'notice');
    return mapView(next, event.sessionId, (view) => push(view, { type: 'notice', id, text: processLine(event), tone: 'info' }));
  }
  const known = state.views[event.sessionId];
  let next = state;
  const newRun = !known || (known.runningRunId !== event.runId && !known.items.some((i) => 'runId' in i && i.runId === event.runId));
  if (newRun && event.kind !== 'run_finished') {
    // A run we did not start here (say, another window's code action): follow it
    // unless the person is watching a run of their own.
    const current = viewOf(state, state.current);
    next = mapView(next, event.sessionId, (view) => ({ ...view, runningRunId: event.runId }));
    if (current.runningRunId === null && state.current !== event.sessionId) {
      next = { ...next, current: event.sessionId };
    }
  }
  const [id, withId] = newId(next, event.kind);
  return mapView(withId, event.sessionId, (view) => applyEvent(view, event, id));
}

/** What a person reads of a background process's start, exit or stop. */
export function processLine(event: Extract<AgentEvent, { kind: 'process' }>): string {
  switch (event.action) {
    case 'started':
      return `Background process ${event.id} started: ${event.command}`;
    case 'exited':
      return `Background process ${event.id} exited (exit code ${event.exitCode}): ${event.command}`;
    case 'stopped':
      return `Background process ${event.id} stopped (${event.by ?? 'stopped'}): ${event.command}`;
  }
}

function applyEvent(view: SessionView, event: Exclude<AgentEvent, { kind: 'process' }>, id: string): SessionView {
  const runId = event.runId;
  switch (event.kind) {
    case 'text': {
      const last = view.items[view.items.length - 1];
      if (last && last.type === 'answer' && last.runId === runId) {
        return { ...view, items: [...view.items.slice(0, -1), { ...last, markdown: last.markdown + event.text }] };
      }
      return push(view, { type: 'answer', id, runId, markdown: event.text });
    }
    case 'thought': {
      const last = view.items[view.items.length - 1];
      if (last && last.type === 'thought' && last.runId === runId) {
        return { ...view, items: [...view.items.slice(0, -1), { ...last, text: last.text + event.text }] };
      }
      return push(view, { type: 'thought', id, runId, text: event.text });
    }
    case 'tool_started':
      return push(
        view,
        { type: 'tool', id, runId, callId: event.callId, name: event.name, summary: event.summary, status: 'running', error: null, line: '' },
      );
    case 'tool_finished': {
      const done = finishedTool(event);
      // A proposed plan still pending once its call is done: the person kept planning.
      view = updateItems(view, (item) =>
        item.type === 'proposed_plan' && item.callId === event.callId && item.status === 'pending' ? { ...item, status: 'keep-planning' } : item,
      );
      return updateLast(
        view,
        (item): item is ToolItem => item.type === 'tool' && item.callId === event.callId,
        (item) => ({ ...item, ...done }),
        { type: 'tool', id, runId, callId: event.callId, name: event.name, ...done },
      );
    }
    case 'approval_asked':
      return push(
        view,
        {
          type: 'approval', id, runId, callId: event.callId, tool: event.tool, summary: event.summary,
          detail: event.detail, rule: event.rule, status: 'pending', via: null, answers: [], ruleAdded: null,
        },
      );
    case 'approval_answered':
      return updateItems(view, (item) =>
        item.type === 'approval' && item.callId === event.callId
          ? { ...item, status: approvalStatus(event.answer), ruleAdded: event.rule }
          : item,
      );
    case 'question': {
      if (event.question === 'plan' && view.items.some((i) => i.type === 'proposed_plan' && i.callId === event.id)) {
        return updateItems(view, (item) =>
          item.type === 'proposed_plan' && item.callId === event.id ? { ...item, answers: event.answers } : item,
        );
      }
      const approval = view.items.some((i) => i.type === 'approval' && i.callId === event.id);
      if (event.question === 'approval' && approval) {
        return updateItems(view, (item) =>
          item.type === 'approval' && item.callId === event.id ? { ...item, via: 'question', answers: event.answers } : item,
        );
      }
      return push(
        view,
        {
          type: 'question', id, runId, questionId: event.id, question: event.question, summary: event.summary,
          detail: event.detail, path: event.path ?? undefined, answers: event.answers, status: 'pending',
        },
      );
    }
    case 'question_closed':
      return updateItems(view, (item) => {
        if (item.type === 'question' && item.questionId === event.id) {
          return { ...item, status: event.answer };
        }
        if (item.type === 'approval' && item.callId === event.id && item.status === 'pending') {
          return { ...item, status: approvalStatus(event.answer) };
        }
        return item;
      });
    case 'edit_proposed':
      return push(
        view,
        { type: 'edit', id, runId, path: event.path, summary: event.summary, status: 'proposed', review: event.review },
      );
    case 'edit_applied':
      return updateLast(
        view,
        (item): item is EditItem => item.type === 'edit' && item.path === event.path && item.status === 'proposed',
        (item) => ({ ...item, status: 'applied', changed: event.changed }),
        { type: 'edit', id, runId, path: event.path, summary: event.summary, status: 'applied', review: false, changed: event.changed },
      );
    case 'edit_rejected':
      return updateLast(
        view,
        (item): item is EditItem => item.type === 'edit' && item.path === event.path && item.status === 'proposed',
        (item) => ({ ...item, status: 'rejected', reason: event.reason }),
        { type: 'edit', id, runId, path: event.path, summary: `edit ${event.path}`, status: 'rejected', review: false, reason: event.reason },
      );
    case 'waiting_for_save':
      // Sent to plain clients only: this client saves accepted edits itself.
      return view;
    case 'plan': {
      const plan = { steps: event.plan, explanation: event.explanation };
      const has = view.items.some((item) => item.type === 'plan' && item.runId === runId);
      return has
        ? updateItems(view, (item) => (item.type === 'plan' && item.runId === runId ? { ...item, ...plan } : item))
        : push(view, { type: 'plan', id, runId, ...plan });
    }
    case 'plan_proposed':
      return push(view, { type: 'proposed_plan', id, runId, callId: event.callId, markdown: event.plan, status: 'pending', answers: [] });
    case 'mode_changed': {
      // The person approved the plan: the run goes on in this mode.
      const mode = event.mode;
      const switched = updateItems(view, (item) =>
        item.type === 'proposed_plan' && item.runId === runId && item.status === 'pending' && (mode === 'default' || mode === 'accept-edits')
          ? { ...item, status: mode }
          : item,
      );
      return push(switched, { type: 'notice', id, text: `Mode: ${mode}. The run goes on in it.`, tone: 'info' });
    }
    case 'steered': {
      // The oldest message still queued with this text reached the model.
      const at = view.items.findIndex((item) => item.type === 'user' && item.steer === 'queued' && item.text === event.text);
      if (at < 0) {
        return push(view, { type: 'user', id, runId, text: event.text, pending: false, steer: 'delivered' });
      }
      const items = view.items.slice();
      const item = items[at];
      if (item?.type === 'user') {
        items[at] = { ...item, runId, pending: false, steer: 'delivered' };
      }
      return { ...view, items };
    }
    case 'usage':
      return { ...view, runUsage: event.usage };
    case 'hook':
      // What a hook of the settings tells the person: why it failed (the run goes on), or
      // a message it asked to show.
      return push(view, {
        type: 'notice', id, text: `${event.event} hook \`${event.command}\`: ${event.text}`, tone: event.error ? 'error' : 'info',
      });
    case 'run_started':
      // The request, for clients that log runs they did not ask for; this chat shows its own.
      return view;
    case 'run_finished':
      return finishRun(view, event.runId, id, event);
  }
}

function finishRun(
  view: SessionView,
  runId: string,
  id: string,
  event: Extract<AgentEvent, { kind: 'run_finished' }>,
): SessionView {
  // Whatever still waits in this run will not be answered any more.
  const closed = view.items.map((item): ChatItem => {
    if (!('runId' in item) || item.runId !== runId) {
      return item;
    }
    if (item.type === 'approval' && item.status === 'pending') {
      return { ...item, status: 'cancelled' };
    }
    if (item.type === 'question' && item.status === 'pending') {
      return { ...item, status: 'cancelled' };
    }
    if (item.type === 'tool' && item.status === 'running') {
      return { ...item, status: 'failed', error: 'cancelled' };
    }
    if (item.type === 'edit' && item.status === 'proposed') {
      return { ...item, status: 'rejected', reason: 'the run ended first' };
    }
    if (item.type === 'proposed_plan' && item.status === 'pending') {
      return { ...item, status: 'ended' };
    }
    if (item.type === 'user' && item.steer === 'queued') {
      return { ...item, pending: false, steer: 'not_delivered' };
    }
    if (item.type === 'user' && item.pending) {
      return { ...item, pending: false };
    }
    return item;
  });
  const usage: Usage = event.usage ?? view.runUsage ?? { inputTokens: 0, outputTokens: 0, costUsd: 0 };
  const end: ChatItem = {
    type: 'run_end', id, runId, reason: event.terminalReason, detail: event.detail ?? '',
    usage, turns: event.turns, budget: event.budget,
  };
  return {
    ...view,
    items: [...closed, end],
    runningRunId: view.runningRunId === runId ? null : view.runningRunId,
    runUsage: view.runningRunId === runId ? null : view.runUsage,
    done: addUsage(view.done, usage),
  };
}

function approvalStatus(answer: string): ApprovalStatus {
  switch (answer) {
    case 'allow_once':
    case 'allow_always':
    case 'deny':
    case 'timeout':
    case 'cancelled':
      return answer;
    case 'allow_always_workspace':
      return 'allow_always';
    default:
      return 'deny';
  }
}

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

type ToolFinished = Extract<AgentEvent, { kind: 'tool_finished' }>;

/** A command that exited non-zero failed, as the CLI and the other editors show it;
 * the first line says how many more there are, and notes come whole. */
function finishedTool(event: ToolFinished) {
  const exit = typeof event.exitCode === 'number' && event.exitCode !== 0 ? event.exitCode : null;
  const more = event.moreLines ? `\n(+${event.moreLines} more line${event.moreLines === 1 ? '' : 's'})` : '';
  const notes = (event.notes ?? []).map((note) => `\nnote: ${note}`).join('');
  return {
    status: event.ok && exit === null ? ('ok' as const) : ('failed' as const),
    error: exit !== null ? `exit code ${exit}` : event.error,
    line: event.line + more + notes,
    summary: event.summary,
  };
}
