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

export type LogEvent = LogSessionStarted | LogRunStarted | LogUserMessage | LogModelRequest | LogModelOutput | LogUsageEvent | LogContextProjected | LogContextSummary | LogToolIntent | LogDecision | LogObservationEvent | LogToolResults | LogModeChanged | LogCheckpointStarted | LogCheckpoint | LogUndo | LogRewound | LogProblems | LogRulesSaved | LogSessionRules | LogNotice | LogGuidance | LogPlanUpdated | LogPlanReviewed | LogSteered | LogProcessEvent | LogHookRun | LogPromptCommandUsed | LogRunFinished | LogRunClosed;

/**
 * Where a forked session came from: its history is that session's, up to (before) an
 * ask or whole.
 */
export interface LogForkOrigin {
  sessionId: string;
  /** the history ends before this ask (1-based); null: the whole session */
  ask: number | null;
  /** how many of that session's asks the history holds */
  asks: number;
}

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

/**
 * An image of a prompt, by hash: its bytes are in the session's folder
 * (`sessions/<id>/images/<sha256>`), never in the log.
 */
export interface LogImageRecord {
  type: 'image';
  /** image/png, image/jpeg, image/gif or image/webp */
  mediaType: string;
  /** of the image's bytes, the name of its file */
  sha256: string;
  /** bytes */
  size: number;
  width: number;
  height: number;
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
    content: (LogTextRecord | LogThinkingRecord | LogRedactedThinkingRecord | LogImageRecord | LogToolUseRecord | LogToolResultRecord)[];
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
  /** the reasoning level the model works at; null: none */
  reasoning: string | null;
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

/**
 * The person's answer to a proposed plan (`propose_plan`); a switch is followed by
 * its `mode_changed`.
 */
export interface LogPlanReviewed {
  v: number;
  seq: number;
  ts: number;
  kind: 'plan_reviewed';
  run: string | null;
  turn: number | null;
  callId: string;
  /** the mode switched to, or keep-planning */
  choice: 'default' | 'accept-edits' | 'keep-planning';
  /** what the person told the model */
  note: string;
  /** false: no one answered (no terminal, --yes) */
  person: boolean;
  /** the plan, in markdown */
  plan: string;
}

export interface LogPlanStepRecord {
  step: string;
  status: 'pending' | 'in_progress' | 'completed';
}

/** The model's checklist (an `update_plan` call), whole: it replaces the one before. */
export interface LogPlanUpdated {
  v: number;
  seq: number;
  ts: number;
  kind: 'plan_updated';
  run: string | null;
  turn: number | null;
  callId: string;
  plan: LogPlanStepRecord[];
  explanation: string;
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
  by: 'model' | 'person' | 'session end' | 'undo' | 'rewind' | null;
  /** "session" (shared), "own" (its own) or "none" */
  sandbox: string;
}

/**
 * The command file a run's prompt named (`/name args`), as it was read: the run's
 * user message is its text with the arguments in place.
 */
export interface LogPromptCommandUsed {
  v: number;
  seq: number;
  ts: number;
  kind: 'prompt_command';
  run: string | null;
  turn: number | null;
  /** without the slash */
  name: string;
  /** workspace-relative, or the person's own file */
  path: string;
  /** of the file's bytes as read */
  sha256: string;
  /** "workspace" or "user" */
  scope: string;
  arguments: string;
  /** the person's own, or approved (agentls trust) */
  trusted: boolean;
  /** allow rules its allowed-tools added to the session */
  rules: string[];
  /** what of the file was not used */
  notes: string[];
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

/**
 * A rewind to before ask `ask` (asks are numbered from 1 in the order of their
 * run_started events, taken back or not). With `conversation`, the asks in `asks`
 * leave the history the model sees; with `files`, the files their checkpointed turns
 * changed went back, those changed since kept as they are.
 */
export interface LogRewound {
  v: number;
  seq: number;
  ts: number;
  kind: 'rewound';
  run: string | null;
  turn: number | null;
  /** the ask rewound to: it and every later one */
  ask: number;
  /** the asks taken back from the history */
  asks: number[];
  /** their runs, in the same order */
  runs: string[];
  conversation: boolean;
  files: boolean;
  /** the checkpointed turns undone */
  turns: number[];
  restored: string[];
  removed: string[];
  /** changed since those turns: kept as they are */
  kept: string[];
  /** not put back: a link leads them out of the workspace */
  refused: string[];
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
  /** the session this one was forked from */
  forkedFrom: LogForkOrigin | null;
}

/**
 * A message the person sent while the run worked, given to the model at this turn's
 * boundary (after the turn's tool results, or as the next prompt when the model had
 * answered).
 */
export interface LogSteered {
  v: number;
  seq: number;
  ts: number;
  kind: 'steered';
  run: string | null;
  turn: number | null;
  text: string;
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
    content: (LogTextRecord | LogThinkingRecord | LogRedactedThinkingRecord | LogImageRecord | LogToolUseRecord | LogToolResultRecord)[];
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
  thinkingTokens: number;
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
    content: (LogTextRecord | LogThinkingRecord | LogRedactedThinkingRecord | LogImageRecord | LogToolUseRecord | LogToolResultRecord)[];
  };
}

export type LogVerdict = 'allow' | 'ask' | 'deny';
