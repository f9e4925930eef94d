// Generated from docs/protocol.schema.json by scripts/generate-protocol.mjs: do not edit.
// The server's models (server/protocol/) are the source; `node scripts/generate-protocol.mjs` regenerates.
/* eslint-disable */

export type LogApprovalAnswer = 'allow_once' | 'allow_always' | 'allow_always_workspace' | 'deny' | 'deny_always';

export interface LogBudgetRecord {
  limit: string;
  max: number;
  used: number;
  overBy: number;
}

export interface LogChangedFile {
  path: string;
  /** "A" added, "M" modified, "D" deleted */
  status: string;
}

export interface LogCheckpoint {
  v: number;
  seq: number;
  ts: number;
  kind: 'checkpoint';
  run: string | null;
  turn: number | null;
  number: number;
  before: string;
  after: string;
  changed: LogChangedFile[];
  /** closed after a crash */
  interrupted: boolean;
}

/** The snapshot before a turn that may change files. */
export interface LogCheckpointStarted {
  v: number;
  seq: number;
  ts: number;
  kind: 'checkpoint_started';
  run: string | null;
  turn: number | null;
  number: number;
  before: string;
}

/**
 * The projection's shape changed: the model now sees [summary head] +
 * history[fromMessage:], tool results longer than bulkyChars in
 * history[elidedFrom:elidedBefore] elided to a stub.
 */
export interface LogContextProjected {
  v: number;
  seq: number;
  ts: number;
  kind: 'context_projected';
  run: string | null;
  turn: number | null;
  fromMessage: number;
  /** the context_summary used */
  summarySeq: number | null;
  /** fromMessage when null */
  elidedFrom: number | null;
  elidedBefore: number;
  bulkyChars: number;
  elided: number;
  estimatedTokens: number;
  compactAt: number;
  window: number;
}

/** Written by a model, never a fact: kept beside the history, never in it. */
export interface LogContextSummary {
  v: number;
  seq: number;
  ts: number;
  kind: 'context_summary';
  run: string | null;
  turn: number | null;
  summary: true;
  text: string;
  /** facts taken from the history */
  pinned: string;
  fromMessage: number;
  /** it stands for history[:upToMessage] */
  upToMessage: number;
  /** "threshold", "prompt_too_long" or "requested" */
  reason: string;
  model: string;
}

export interface LogDecision {
  v: number;
  seq: number;
  ts: number;
  kind: 'decision';
  run: string | null;
  turn: number | null;
  callId: string;
  verdict: LogVerdict;
  source: string;
  answer: LogApprovalAnswer | null;
  runs: string | null;
}

export type LogErrorCode = 'not_found' | 'invalid_input' | 'permission_denied' | 'timeout' | 'execution_failed' | 'conflict' | 'cancelled';

export type LogEvent = LogSessionStarted | LogRunStarted | LogUserMessage | LogModelRequest | LogModelOutput | LogUsageEvent | LogContextProjected | LogContextSummary | LogToolIntent | LogDecision | LogObservationEvent | LogToolResults | LogModeChanged | LogCheckpointStarted | LogCheckpoint | LogUndo | LogProblems | LogRulesSaved | LogSessionRules | LogNotice | LogGuidance | LogProcessEvent | LogHookRun | LogRunFinished | LogRunClosed;

/** What a run was told besides its prompt: the instruction files and memories. */
export interface LogGuidance {
  v: number;
  seq: number;
  ts: number;
  kind: 'guidance';
  run: string | null;
  turn: number | null;
  files: LogInstructionFileRecord[];
  /** files the size limit left out */
  leftOut: string[];
  /** ids of the memories shown */
  memories: string[];
  /** files or stores that were not used */
  warnings: string[];
}

/**
 * One hook command of the settings run at one of its events, and what came of it.
 * Replay reads these instead of running hooks again.
 */
export interface LogHookRun {
  v: number;
  seq: number;
  ts: number;
  kind: 'hook_run';
  run: string | null;
  turn: number | null;
  /** e.g. "PreToolUse" */
  hookEvent: string;
  /** as the settings wrote it, masked */
  command: string;
  /** from the managed settings */
  managed: boolean;
  /** the tool call, for tool events */
  callId: string | null;
  timeoutSeconds: number;
  /** null: killed or never started */
  exitCode: number | null;
  timedOut: boolean;
  /** why it did not run or finish */
  failure: string | null;
  /** bounded, masked */
  stdout: string;
  /** bounded, masked */
  stderr: string;
  durationMs: number;
  /** what it decided: "deny", "context", ... */
  outcome: string;
}

export interface LogInstructionFileRecord {
  /** as the model saw it: workspace-relative, or the user's own */
  path: string;
  /** of the file's bytes when the run read it */
  sha256: string;
  bytes: number;
  /** cut at instructions.maxBytes */
  cut: boolean;
}

export interface LogModeChanged {
  v: number;
  seq: number;
  ts: number;
  kind: 'mode_changed';
  run: string | null;
  turn: number | null;
  mode: string;
}

export interface LogModelOutput {
  v: number;
  seq: number;
  ts: number;
  kind: 'model_output';
  run: string | null;
  turn: number | null;
  /** A message of the history, as the log writes it. */
  message: {
    role: 'user' | 'assistant';
    content: (LogTextRecord | LogThinkingRecord | LogRedactedThinkingRecord | LogToolUseRecord | LogToolResultRecord)[];
  };
  stopReason: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal' | 'pause_turn' | 'other';
}

export interface LogModelRequest {
  v: number;
  seq: number;
  ts: number;
  kind: 'model_request';
  run: string | null;
  turn: number | null;
  model: string;
  /** how many, as projected */
  messages: number;
  /** the names offered */
  tools: string[];
  /** the whole prompt */
  estimatedTokens: number | null;
}

/** Something the person is told once in a session, whichever process runs it. */
export interface LogNotice {
  v: number;
  seq: number;
  ts: number;
  kind: 'notice';
  run: string | null;
  turn: number | null;
  /** what it is about, e.g. "no_sandbox" */
  topic: string;
  text: string;
}

export interface LogObservationEvent {
  v: number;
  seq: number;
  ts: number;
  kind: 'observation';
  run: string | null;
  turn: number | null;
  callId: string;
  name: string;
  ok: boolean;
  content: string;
  error: LogErrorCode | null;
  retryable: boolean;
  meta: Record<string, unknown>;
}

export interface LogProblemRecord {
  path: string;
  line: number;
  message: string;
  source: string;
  severity: string;
  code: string;
}

/** Problems a turn's edits introduced (language servers). */
export interface LogProblems {
  v: number;
  seq: number;
  ts: number;
  kind: 'problems';
  run: string | null;
  turn: number | null;
  problems: LogProblemRecord[];
  /** files still being checked */
  unsettled: string[];
  /** the text added to the tool results that follow */
  note: string;
}

/**
 * A background process started (in the run and turn of the call that started it),
 * exited by itself, or was stopped (and by whom).
 */
export interface LogProcessEvent {
  v: number;
  seq: number;
  ts: number;
  kind: 'process';
  run: string | null;
  turn: number | null;
  /** p1, p2, ... in the order the session started them */
  id: string;
  action: 'started' | 'exited' | 'stopped';
  /** the line as the gate and any person saw it */
  command: string;
  /** the run_command call that started it */
  callId: string;
  /** once it has ended; negative: killed by that signal */
  exitCode: number | null;
  /** who stopped it */
  by: 'model' | 'person' | 'session end' | 'undo' | null;
  /** "session" (shared), "own" (its own) or "none" */
  sandbox: string;
}

export interface LogRedactedThinkingRecord {
  type: 'redacted_thinking';
  data: string;
}

export interface LogResultUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** USD; null when unknown */
  costUsd: number | null;
}

export interface LogRulesSaved {
  v: number;
  seq: number;
  ts: number;
  kind: 'rules_saved';
  run: string | null;
  turn: number | null;
  /** allow rules "always allow" saved */
  rules: string[];
  /** the workspace settings file */
  path: string;
}

/** Written on resume for a run that never finished. */
export interface LogRunClosed {
  v: number;
  seq: number;
  ts: number;
  kind: 'run_closed';
  run: string | null;
  turn: number | null;
  reason: string;
  detail: string;
}

export interface LogRunFinished {
  v: number;
  seq: number;
  ts: number;
  kind: 'run_finished';
  run: string | null;
  turn: number | null;
  result: LogRunResultRecord;
}

/** How a run ended (`RunResult`). */
export interface LogRunResultRecord {
  terminalReason: string;
  text: string;
  turns: number;
  usage: LogResultUsage;
  detail: string;
  budget: LogBudgetRecord | null;
}

export interface LogRunStarted {
  v: number;
  seq: number;
  ts: number;
  kind: 'run_started';
  run: string | null;
  turn: number | null;
  prompt: string;
  /** the run's settings in their wire form */
  settings: Record<string, unknown>;
  /** the mode the run starts in */
  mode: string | null;
  /** edits are reviewed by the workspace */
  reviewed: boolean;
}

/**
 * Rules an "always" answer added for the rest of the session (in no settings file):
 * a session opened again from its log keeps them.
 */
export interface LogSessionRules {
  v: number;
  seq: number;
  ts: number;
  kind: 'session_rules';
  run: string | null;
  turn: number | null;
  /** allow rules ("always allow") */
  allow: string[];
  /** deny rules ("always reject") */
  deny: string[];
}

export interface LogSessionStarted {
  v: number;
  seq: number;
  ts: number;
  kind: 'session_started';
  run: string | null;
  turn: number | null;
  sessionId: string;
  /** absolute path */
  workspace: string;
  model: string;
  /** ISO 8601 */
  createdAt: string;
}

export interface LogTextRecord {
  type: 'text';
  text: string;
}

export interface LogThinkingRecord {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface LogToolIntent {
  v: number;
  seq: number;
  ts: number;
  kind: 'tool_intent';
  run: string | null;
  turn: number | null;
  callId: string;
  name: string;
  input: Record<string, unknown>;
  /** one line for a person */
  summary: string | null;
}

export interface LogToolResultRecord {
  type: 'tool_result';
  toolUseId: string;
  content: string;
  isError: boolean;
}

/** The user message of tool results appended to the history. */
export interface LogToolResults {
  v: number;
  seq: number;
  ts: number;
  kind: 'tool_results';
  run: string | null;
  turn: number | null;
  /** A message of the history, as the log writes it. */
  message: {
    role: 'user' | 'assistant';
    content: (LogTextRecord | LogThinkingRecord | LogRedactedThinkingRecord | LogToolUseRecord | LogToolResultRecord)[];
  };
}

export interface LogToolUseRecord {
  type: 'tool_use';
  id: string;
  name: string;
  input: Record<string, unknown>;
}

/** `turn` is the last checkpoint number undone. */
export interface LogUndo {
  v: number;
  seq: number;
  ts: number;
  kind: 'undo';
  run: string | null;
  turn: number | null;
  turns: number[];
  /** a whole ask: its runId */
  ask: boolean;
  runId: string | null;
  restored: string[];
  removed: string[];
  conflicts: string[];
  /** not put back: a link leads them out of the workspace */
  refused: string[];
  done: boolean;
}

export interface LogUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

export interface LogUsageEvent {
  v: number;
  seq: number;
  ts: number;
  kind: 'usage';
  run: string | null;
  turn: number | null;
  /** tokens of this call */
  usage: LogUsage;
  /** this call; null when unknown */
  costUsd: number | null;
  /** the run so far */
  totalCostUsd: number | null;
  /** null for the agent's own calls */
  purpose: 'compaction' | null;
}

export interface LogUserMessage {
  v: number;
  seq: number;
  ts: number;
  kind: 'user_message';
  run: string | null;
  turn: number | null;
  /** A message of the history, as the log writes it. */
  message: {
    role: 'user' | 'assistant';
    content: (LogTextRecord | LogThinkingRecord | LogRedactedThinkingRecord | LogToolUseRecord | LogToolResultRecord)[];
  };
}

export type LogVerdict = 'allow' | 'ask' | 'deny';
