// The server's side of the contract (docs/protocol.md), as the client reads it.
// Only types and names: no vscode, no IO, so tests and the webview can use it.

export const COMMANDS = {
  ask: 'agentls.ask',
  cancel: 'agentls.cancel',
  sessions: 'agentls.sessions',
  showTranscript: 'agentls.showTranscript',
  setMode: 'agentls.setMode',
  answer: 'agentls.answer',
  showDiff: 'agentls.showDiff',
  // Undo last ask: {sessionId, turn?} puts back the whole last ask, or with `turn` that one
  // turn. Offered only when the server advertises it (older servers do not).
  undo: 'agentls.undo',
} as const;

export const EVENT_METHOD = 'agentls/event';

export const MODES = ['default', 'accept-edits', 'plan', 'bypass'] as const;
export type Mode = (typeof MODES)[number];

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** null when the model's price is unknown (local models). */
  costUsd: number | null;
}

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface AskParams {
  prompt: string;
  sessionId?: string;
  uri?: string;
  range?: Range;
}

export interface AskStarted {
  sessionId: string;
  runId: string;
  status: 'started';
}

export interface SessionInfo {
  sessionId: string;
  createdAt: string;
  workspace: string;
  firstPrompt: string;
  outcome: string | null;
  runs: number;
  costUsd: number | null;
  running: boolean;
}

export interface Budget {
  limit: string;
  max: number;
  used: number;
  overBy: number;
}

export interface AnswerOption {
  answer: string;
  title: string;
}

interface EventBase {
  sessionId: string;
  runId: string;
  turn: number;
}

export type AgentEvent = EventBase &
  (
    | { kind: 'text'; text: string }
    | { kind: 'tool_started'; callId: string; name: string; summary: string }
    | {
        kind: 'tool_finished';
        callId: string;
        name: string;
        summary: string;
        ok: boolean;
        error: string | null;
        line: string;
        moreLines?: number; // lines after `line`
        exitCode?: number | null; // a command's; non-zero shows as failed
        notes?: string[]; // shown whole (unsaved files and the like)
      }
    | { kind: 'approval_asked'; callId: string; tool: string; summary: string; detail: string; rule: string }
    | { kind: 'approval_answered'; callId: string; answer: string; rule: string | null }
    | {
        kind: 'question';
        id: string;
        question: 'approval' | 'review';
        summary: string;
        detail: string;
        path?: string;
        answers: AnswerOption[];
      }
    | { kind: 'question_closed'; id: string; answer: string }
    | { kind: 'edit_proposed'; path: string; summary: string; review: boolean }
    | { kind: 'edit_applied'; path: string; summary: string; changed: boolean }
    | { kind: 'edit_rejected'; path: string; reason: string }
    | { kind: 'usage'; usage: Usage }
    | {
        kind: 'run_finished';
        terminalReason: string;
        text: string;
        turns?: number;
        usage: Usage;
        detail?: string;
        budget?: Budget;
      }
  );

export type EventKind = AgentEvent['kind'];

const KINDS: ReadonlySet<string> = new Set<EventKind>([
  'text',
  'tool_started',
  'tool_finished',
  'approval_asked',
  'approval_answered',
  'question',
  'question_closed',
  'edit_proposed',
  'edit_applied',
  'edit_rejected',
  'usage',
  'run_finished',
]);

/** A notification's params as an event we know, or undefined (newer servers may send more kinds). */
export function asAgentEvent(params: unknown): AgentEvent | undefined {
  if (typeof params !== 'object' || params === null) {
    return undefined;
  }
  const candidate = params as Record<string, unknown>;
  if (typeof candidate.sessionId !== 'string' || typeof candidate.kind !== 'string') {
    return undefined;
  }
  if (!KINDS.has(candidate.kind)) {
    return undefined;
  }
  return { runId: '', turn: 0, ...candidate } as AgentEvent;
}

/** The approval prompt's actions, titled exactly so by the server. */
export const APPROVAL_ACTIONS = ['Allow once', 'Always allow', 'Deny'] as const;
export type ApprovalTitle = (typeof APPROVAL_ACTIONS)[number];

export const APPROVAL_ANSWER_OF: Record<ApprovalTitle, string> = {
  'Allow once': 'allow_once',
  'Always allow': 'allow_always',
  Deny: 'deny',
};
