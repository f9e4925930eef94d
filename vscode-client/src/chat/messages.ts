// Messages between the extension and the chat webview. Shared by both sides:
// types only, plus the one function that builds what the webview draws.
import type { ApprovalTitle, PlanTitle } from '../protocol';
import { type CommandSuggestion, commandSuggestions } from '../commands/promptCommandItems';
import { sessionLabel } from '../commands/sessionLabels';
import { type Activity, runActivity } from './activity';
import { type ChatState, NEW_SESSION, type ServerState, type SessionView, type ShownItem, sessionTotals } from './model';
import { usageLine } from '../status/statusText';

export interface SessionChoice {
  id: string;
  label: string;
}

export interface WebviewModel {
  server: { state: ServerState; message: string };
  sessionId: string;
  title: string;
  running: boolean;
  items: ShownItem[];
  sessions: SessionChoice[];
  usage: string;
  /** What the running run does now (null between runs). */
  activity: Activity | null;
  /** The prompt commands a prompt may start with (`/name`). */
  commands: CommandSuggestion[];
}

/** An image pasted or attached in the chat: its bytes as base64 (the server checks them). */
export interface ImageAttachment {
  name: string;
  mimeType: string;
  data: string;
}

export type ToWebview = { type: 'model'; model: WebviewModel } | { type: 'focusInput' };

export type FromWebview =
  | { type: 'ready' }
  | { type: 'ask'; prompt: string; images?: ImageAttachment[] }
  /** Written while the session's run works: for the model at its next turn boundary. */
  | { type: 'steer'; prompt: string }
  /** An answer to a proposed plan: a PLAN_TITLES title. */
  | { type: 'planAnswer'; callId: string; title: PlanTitle }
  | { type: 'cancel' }
  | { type: 'approve'; callId: string; title: ApprovalTitle }
  | { type: 'answer'; id: string; answer: string }
  | { type: 'showDiff'; id: string }
  | { type: 'review'; action: 'apply' | 'reject' | 'pick' | 'diff' }
  | { type: 'pickSession'; sessionId: string }
  | { type: 'refreshSessions' }
  | { type: 'refreshCommands' }
  | { type: 'openTranscript' }
  | { type: 'restartServer' }
  | { type: 'openFile'; path: string }
  /** The person edited an earlier prompt: rewind to its ask, then ask `prompt` (after a confirmation). */
  | { type: 'editAsk'; runId: string; prompt: string };

export function webviewModel(state: ChatState, now: Date = new Date()): WebviewModel {
  const view = state.views[state.current];
  const sessions: SessionChoice[] = [{ id: NEW_SESSION, label: 'New session' }];
  const listed = new Set<string>();
  for (const info of state.sessions) {
    listed.add(info.sessionId);
    const label = sessionLabel(info, now);
    sessions.push({ id: info.sessionId, label: `${label.label} — ${label.description}` });
  }
  // A session asked in this window but not yet in the stored list still shows.
  if (view && view.sessionId !== NEW_SESSION && !listed.has(view.sessionId)) {
    sessions.splice(1, 0, { id: view.sessionId, label: view.title || view.sessionId });
  }
  return {
    server: state.server,
    sessionId: state.current,
    title: view?.title ?? '',
    running: Boolean(view?.runningRunId),
    items: view ? shownItems(view) : [],
    sessions,
    usage: view ? usageLine(sessionTotals(view)) : '',
    activity: view ? runActivity(view) : null,
    commands: commandSuggestions(state.commands),
  };
}

function shownItems(view: SessionView): ShownItem[] {
  const rewound = new Set(view.rewoundRuns);
  const idle = view.runningRunId === null;
  return view.items.map((item) => {
    const run = 'runId' in item ? item.runId : undefined;
    if (run !== undefined && rewound.has(run)) {
      return { ...item, rewound: true };
    }
    return item.type === 'user' && run && idle && !item.pending ? { ...item, editable: true } : item;
  });
}
