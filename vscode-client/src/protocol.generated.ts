// Generated from docs/protocol.schema.json by scripts/generate-protocol.mjs: do not edit.
// The server's models (server/protocol/) are the source; `node scripts/generate-protocol.mjs` regenerates.
/* eslint-disable */

export const EVENT_METHOD = 'agentls/event';

/** The `kind`s of `agentls/event` this client knows. */
export const EVENT_KINDS = ['run_started', 'text', 'thought', 'tool_started', 'tool_finished', 'approval_asked', 'approval_answered', 'question', 'question_closed', 'edit_proposed', 'edit_applied', 'edit_rejected', 'waiting_for_save', 'plan', 'plan_proposed', 'mode_changed', 'steered', 'usage', 'process', 'hook', 'run_finished'] as const;

/** Each `agentls.*` command: its one argument (`params?`: may be left out, or `{}`) and result. */
export interface Commands {
  'agentls.ask': { params: AskParams; result: AskStarted | AskFinished };
  'agentls.cancel': { params?: CancelParams; result: CancelResult };
  'agentls.steer': { params: SteerParams; result: SteerResult };
  'agentls.sessions': { result: SessionInfo[] };
  'agentls.showTranscript': { params?: TranscriptParams; result: TranscriptShown };
  'agentls.setMode': { params: SetModeParams; result: ModeSet };
  'agentls.answer': { params: AnswerParams; result: Answered };
  'agentls.showDiff': { params: QuestionParams; result: DiffShown };
  'agentls.undo': { params: UndoParams; result: UndoResult };
  'agentls.asks': { params: AsksParams; result: AskEntry[] };
  'agentls.rewind': { params: RewindParams; result: RewindResult };
  'agentls.fork': { params: ForkParams; result: Forked };
  'agentls.mcp': { params?: McpParams; result: McpServerReport[] };
  'agentls.doctor': { params?: DoctorParams; result: DoctorReport };
  'agentls.memory': { params?: MemoryParams; result: MemoryResult };
  'agentls.commands': { params?: CommandsParams; result: CommandsInfo };
  'agentls.processes': { params?: ProcessesParams; result: ProcessesResult };
}

export type CommandName = keyof Commands;

export const COMMAND_NAMES = ['agentls.ask', 'agentls.cancel', 'agentls.steer', 'agentls.sessions', 'agentls.showTranscript', 'agentls.setMode', 'agentls.answer', 'agentls.showDiff', 'agentls.undo', 'agentls.asks', 'agentls.rewind', 'agentls.fork', 'agentls.mcp', 'agentls.doctor', 'agentls.memory', 'agentls.commands', 'agentls.processes'] as const;

export type AgentEvent = RunStarted | TextEvent | ThoughtEvent | ToolStarted | ToolFinished | ApprovalAsked | ApprovalAnswered | QuestionAsked | QuestionClosed | EditProposed | EditApplied | EditRejected | WaitingForSave | PlanEvent | PlanProposed | ModeChanged | Steered | UsageEvent | ProcessEvent | HookNoticeEvent | RunFinished;

export interface AnswerOption {
  /** what `agentls.answer` takes */
  answer: string;
  title: string;
}

export interface AnswerParams {
  id: string;
  answer: string;
}

export interface Answered {
  id: string;
  answer: string;
}

export type ApprovalAnswer = 'allow_once' | 'allow_always' | 'allow_always_workspace' | 'deny' | 'deny_always';

export interface ApprovalAnswered {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'approval_answered';
  callId: string;
  answer: ApprovalAnswer;
  /** the session rule added, if any */
  rule: string | null;
}

export interface ApprovalAsked {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'approval_asked';
  callId: string;
  tool: string;
  summary: string;
  /** the command, or the diff */
  detail: string;
  /** what "Always allow" would add */
  rule: string;
}

export interface AskEntry {
  /** its number, from 1, as `agentls show` prints it */
  ask: number;
  runId: string;
  /** the person's words (the prompt's first paragraph) */
  prompt: string;
  /** how its run ended, or `unfinished` */
  outcome: string;
  /** a rewind took it back: the model no longer sees it */
  rewound: boolean;
}

/** The answer to an ask with `"wait": true`. */
export interface AskFinished {
  sessionId: string;
  runId: string;
  terminalReason: TerminalReason;
  text: string;
  turns: number;
  usage: Usage;
  /** why the run stopped, for a person */
  detail: string;
  /** when a budget stopped it */
  budget?: Budget;
}

/**
 * An image sent with the prompt: a file the server reads, or the bytes themselves.
 * Its format is read from its bytes (PNG, JPEG, GIF or WebP), whatever its name or
 * `mimeType` say.
 */
export interface AskImage {
  /** an image file: absolute, or relative to the workspace root */
  path?: string | null;
  /** the image's bytes, base64 */
  data?: string | null;
  /** what the client believes it is (agentls checks the bytes) */
  mimeType?: string | null;
  /** for messages about it */
  name?: string | null;
}

export interface AskParams {
  prompt: string;
  /** continue this session */
  sessionId?: string | null;
  /** the document asked about */
  uri?: string | null;
  /** lines of `uri` to attach */
  range?: Range | null;
  /** answer only when the run has ended */
  wait?: boolean;
  /** images for the model, checked against it first */
  images?: AskImage[];
}

export interface AskStarted {
  sessionId: string;
  runId: string;
  status: 'started';
}

export interface AsksParams {
  sessionId: string;
}

/** The limit a run hit, and by how much. */
export interface Budget {
  limit: 'tokens' | 'cost_usd' | 'turns' | 'wall_seconds';
  max: number;
  used: number;
  overBy: number;
}

export interface CancelParams {
  /** without it: every run */
  sessionId?: string | null;
}

export interface CancelResult {
  sessionId: string | null;
  cancelled: boolean;
  /** the sessions whose runs were aborted (without a sessionId) */
  sessionIds?: string[];
}

export interface CommandsInfo {
  /** by name; `/name args` asks with one */
  commands: PromptCommandInfo[];
  /** command files skipped, and why */
  problems: string[];
}

export interface CommandsParams {
  /** the folder of this document */
  uri?: string | null;
}

export interface ConfiguredHook {
  /** PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart, SessionEnd, PreCompact or Notification */
  event: string;
  /** empty: every target */
  matcher: string;
  command: string;
  /** seconds */
  timeout: number;
  /** runs in the sandbox */
  sandbox: boolean;
  /** the settings layer it comes from */
  source: 'user' | 'workspace' | 'editor' | 'managed';
  /** its settings file; null for the editor's settings */
  path: string | null;
  /** a session here runs it when its event matches */
  runs: boolean;
  /** why it does not run; null when it does */
  reason: string | null;
}

export interface ContextWindowInfo {
  tokens: number;
  /** where the figure came from: a setting, the model table, the model's server, or assumed */
  source: string;
}

export interface DiffShown {
  id: string;
  uri: string;
  shown: boolean;
}

export interface DoctorParams {
  /** the folder of this document */
  uri?: string | null;
}

export interface DoctorReport {
  version: string;
  python: PythonInfo;
  workspace: string | null;
  model: ModelInfo;
  ripgrep: RipgrepInfo;
  sandbox: SandboxInfo;
  folders: Folders;
  settings: SettingsFiles;
  telemetry: TelemetryInfo;
  instructions: InstructionsInfo;
  commands: CommandsInfo;
  hooks: HooksInfo;
  /** names; none is started */
  mcpServers: string[];
  languageServers: LanguageServerInfo[];
  editors: EditorIntegration[];
  /** what stops an ask */
  blocking: string[];
  warnings: string[];
  /** nothing blocks an ask */
  ok: boolean;
}

export interface EditApplied {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'edit_applied';
  path: string;
  summary: string;
  /** true when what landed differs from the proposal */
  changed: boolean;
}

export interface EditProposed {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'edit_proposed';
  path: string;
  /** e.g. `edit a.py (+3 −1 lines)` */
  summary: string;
  /** true when the editor's own preview reviews it */
  review: boolean;
}

export interface EditRejected {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'edit_rejected';
  path: string;
  reason: string;
}

export interface EditorIntegration {
  editor: 'vscode' | 'neovim' | 'emacs';
  path: string;
  version: string | null;
}

export interface Folders {
  state: string;
  config: string;
}

export interface ForkParams {
  sessionId: string;
  /** the history ends before this ask; without it: whole */
  ask?: number | null;
}

export interface Forked {
  /** the new session */
  sessionId: string;
  forkedFrom: string;
  ask: number | null;
}

/**
 * A settings hook has something for the person: it failed or was cut off (``error``:
 * the run goes on; a PreToolUse hook's call then asks), or it asked to show a message.
 */
export interface HookNoticeEvent {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'hook';
  /** the hook event, e.g. "PreToolUse" */
  event: string;
  /** the hook's command, as the settings wrote it */
  command: string;
  text: string;
  error: boolean;
}

export interface HookProblem {
  source: 'user' | 'workspace' | 'managed';
  path: string;
  /** where in the file: hooks.PreToolUse[0].hooks[1] */
  entry: string;
  error: string;
}

export interface HooksInfo {
  /** the person's and the workspace's hooks are off */
  disableAllHooks: boolean;
  /** only the managed settings' hooks run */
  allowManagedHooksOnly: boolean;
  /** by event; none is run by the doctor */
  configured: ConfiguredHook[];
  /** entries that do not load */
  problems: HookProblem[];
}

export interface InstructionFileInfo {
  /** workspace-relative, or the user's own file */
  path: string;
  bytes: number;
  sha256: string;
  /** cut at instructions.maxBytes */
  cut: boolean;
}

export interface InstructionsInfo {
  enabled: boolean;
  /** what an ask at the root is given */
  files: InstructionFileInfo[];
  /** files the size limit leaves out */
  leftOut: string[];
  /** memories an ask here is shown */
  memories: number;
}

export interface LanguageServerInfo {
  /** as the languageServers setting names it */
  name: string;
  command: string;
  filePatterns: string[];
  /** the command is on PATH */
  found: boolean;
  path: string | null;
  version: string | null;
  /** agentls would start it when a file it serves needs it */
  wouldRun: boolean;
  /** why it would not run; null when it would */
  reason: string | null;
  /** how to install it, when it is missing */
  install: string | null;
}

export interface ManagedSettingsState {
  path: string;
  exists: boolean;
  /** a managed policy applies over every other setting */
  inForce: boolean;
  /** what it holds, in a few words each */
  enforces: string[];
  /** the person's settings it overrides, and how */
  overrides: string[];
  error?: string;
}

export interface McpParams {
  /** only the folder of this document */
  uri?: string | null;
  /** give servers that failed a fresh start */
  restart?: boolean;
  /** start servers that are not running */
  start?: boolean;
}

export interface McpServerReport {
  workspace: string;
  name: string;
  transport: 'stdio' | 'http' | 'none';
  /** the command line or the URL; never env or headers */
  target: string;
  status: 'ready' | 'failed' | 'starting' | 'stopped' | 'disabled';
  error: string | null;
  restarts: number;
  tools: McpTool[];
  /** tools left out, and why */
  notes: string[];
}

export interface McpTool {
  /** as the model sees it: mcp__<server>__<tool> */
  name: string;
  /** as the server calls it */
  serverName: string;
  description: string;
  /** the server's readOnlyHint */
  readOnly: boolean;
}

export interface MemoryEntry {
  id: string;
  content: string;
  /** "user" or "project" */
  scope: string;
  /** explicit_user_rule, verified_observation, agent_summary */
  source: string;
  /** low, medium, high */
  confidence: string;
  createdAt: string;
  lastVerifiedAt: string | null;
  expiresAt: string | null;
  /** not verified for 30 days */
  stale: boolean;
  /** the memory in one line, as the CLI lists it */
  line: string;
}

export interface MemoryParams {
  action?: 'list' | 'add' | 'forget';
  /** the folder of this document */
  uri?: string | null;
  /** for add: what to remember */
  text?: string | null;
  scope?: 'user' | 'project';
  /** for add */
  expiresDays?: number | null;
  /** for forget: the memory's id */
  id?: string | null;
}

export interface MemoryResult {
  /** what applies now, after the action */
  memories: MemoryEntry[];
  /** the id added or forgotten */
  changed: string | null;
  /** stores that did not load */
  warnings: string[];
}

export type Mode = 'default' | 'accept-edits' | 'plan' | 'bypass';

/** The session's mode changed during the run: the person approved a plan. */
export interface ModeChanged {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'mode_changed';
  mode: Mode;
}

export interface ModeSet {
  mode: Mode;
  sessionId: string | null;
}

export interface ModelInfo {
  id: string | null;
  provider: string | null;
  keyVariable: string | null;
  /** null when the model needs no key */
  keySet: boolean | null;
  baseUrl?: string | null;
  /** the window a run would use (given when the settings load) */
  contextWindow?: ContextWindowInfo | null;
  /** the reasoning a run would ask for (when the settings load) */
  reasoning?: ReasoningInfo | null;
  /** the model table marks the model as taking images */
  images?: boolean | null;
}

/** The model's checklist (`update_plan`), whole: it replaces the one shown before. */
export interface PlanEvent {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'plan';
  plan: PlanStep[];
  /** why the plan is so, or what changed; may be empty */
  explanation: string;
}

/**
 * In plan mode, a plan is put to the person (`propose_plan`); the question follows
 * (a prompt, or a `question` of kind `plan`).
 */
export interface PlanProposed {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'plan_proposed';
  callId: string;
  /** markdown */
  plan: string;
}

export interface PlanStep {
  step: string;
  status: 'pending' | 'in_progress' | 'completed';
}

export interface Position {
  line: number;
  character: number;
}

export interface ProcessEntry {
  sessionId: string;
  /** `p1`, `p2`, … */
  id: string;
  command: string;
  state: 'running' | 'exited' | 'stopped';
  exitCode: number | null;
  /** ISO 8601 */
  startedAt: string;
  /** the run that started it */
  runId: string | null;
  /** "session" (shared), "own" (its own) or "none" */
  sandbox: string;
}

/**
 * A background process started, exited by itself or was stopped. `runId` and `turn`
 * are those of the call that started it, also for its end (which may come after that
 * run, or between runs).
 */
export interface ProcessEvent {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'process';
  /** `p1`, `p2`, … in the order the session started them */
  id: string;
  action: 'started' | 'exited' | 'stopped';
  /** the command line, as the gate and any person saw it */
  command: string;
  state: 'running' | 'exited' | 'stopped';
  /** once it has ended; negative: killed by a signal */
  exitCode: number | null;
  /** who stopped it, for `stopped` */
  by: 'model' | 'person' | 'session end' | 'undo' | 'rewind' | null;
  /** "session" (shared), "own" (its own) or "none" */
  sandbox: string;
}

export interface ProcessesParams {
  /** this session's processes; without it: every open session's */
  sessionId?: string | null;
  /** a process to stop first (`p1`); without a sessionId, the one open session that runs it */
  stop?: string | null;
}

export interface ProcessesResult {
  /** running first, then ended, oldest first */
  processes: ProcessEntry[];
  /** the id stopped, if one was */
  stopped: string | null;
}

export interface PromptCommandInfo {
  /** without the slash; a subfolder's as `folder:name` */
  name: string;
  description: string;
  /** the file's argument-hint; null: none */
  argumentHint: string | null;
  /** what to type after the name (argumentHint or a default) */
  inputHint: string;
  /** workspace-relative, or the person's own file */
  path: string;
  scope: 'workspace' | 'user';
  /** the person's own, or approved with `agentls trust` */
  trusted: boolean;
  /** the file's allowed-tools, as written */
  allowedTools: string[];
  /** the allow rules an ask with it adds (trusted only) */
  rules: string[];
  /** what of the file is not used, and why */
  notes: string[];
  /** files of the same name it hides */
  shadows: string[];
}

export interface PythonInfo {
  version: string;
  executable: string;
}

/** A question now waits for `agentls.answer`. */
export interface QuestionAsked {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'question';
  /** the callId for an approval or a proposed plan, `review-N` for an edit */
  id: string;
  question: 'approval' | 'review' | 'plan';
  summary: string;
  /** the command, or the unified diff */
  detail: string;
  /** the file, for a review */
  path: string | null;
  /** in the order to offer them */
  answers: AnswerOption[];
}

export interface QuestionClosed {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'question_closed';
  id: string;
  /** the answer given, `timeout` or `cancelled` */
  answer: string;
}

export interface QuestionParams {
  id: string;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface ReasoningInfo {
  /** off, low, medium or high */
  level: string | null;
  /** set by the `reasoning` setting (else the model's default) */
  chosen: boolean;
  /** for a person: the level, where it came from, its budget */
  detail: string;
}

export interface RewindParams {
  sessionId: string;
  /** rewind to before this ask */
  ask?: number | null;
  /** or the ask by its run's id */
  runId?: string | null;
  /** take the asks back from the history */
  conversation?: boolean;
  /** put back the files they changed */
  files?: boolean;
  /** say what it would do; change nothing */
  dryRun?: boolean;
}

export interface RewindResult {
  /** rewound to before this ask */
  ask: number;
  /** the asks taken back from the history */
  asks: number[];
  /** their runs */
  runs: string[];
  /** their words, one short line each */
  prompts: string[];
  conversation: boolean;
  files: boolean;
  /** the checkpointed turns undone */
  turns: number[];
  restored: string[];
  removed: string[];
  /** changed since: kept as they are, not put back */
  kept: string[];
  /** not put back: a link leads them out of the workspace */
  refused: string[];
  /** nothing was changed: this is what a rewind would do */
  dryRun: boolean;
  /** what was done (or would be), in a sentence */
  summary: string;
}

export interface RipgrepInfo {
  found: boolean;
  path: string | null;
  version: string | null;
}

export interface RunFinished {
  sessionId: string;
  runId: string;
  terminalReason: TerminalReason;
  text: string;
  turns: number;
  usage: Usage;
  /** why the run stopped, for a person */
  detail: string;
  /** when a budget stopped it */
  budget?: Budget;
  kind: 'run_finished';
  turn: number;
}

/** A run began (asked from a command, a code action or another client of the server). */
export interface RunStarted {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'run_started';
  /** what the person asked, in their own words */
  request: string;
}

export interface SandboxInfo {
  on: boolean;
  detail: string;
  /** bubblewrap works here */
  bwrap: boolean;
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
  /** a fork's: the session it was forked from */
  forkedFrom?: string;
  /** a fork's: its history ends before that session's ask N */
  forkedAtAsk?: number;
}

export interface SetModeParams {
  mode: 'default' | 'accept-edits' | 'plan' | 'bypass';
  /** without it: the default for new sessions */
  sessionId?: string | null;
}

export interface SettingsFileState {
  path: string;
  exists: boolean;
  /** for the workspace file: approved with `agentls trust` */
  trusted?: boolean | null;
  error?: string;
}

export interface SettingsFiles {
  user: SettingsFileState;
  workspace?: SettingsFileState;
  managed?: ManagedSettingsState;
}

export interface SteerParams {
  sessionId: string;
  /** the person's words for the running run */
  prompt: string;
}

export interface SteerResult {
  sessionId: string;
  /** the run it waits for; null when none is going */
  runId: string | null;
  /** false: no run is going (send it with agentls.ask) */
  queued: boolean;
}

/** A message sent with `agentls.steer` reached the model (at this turn's boundary). */
export interface Steered {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'steered';
  text: string;
}

export interface TelemetryInfo {
  enabled: boolean;
  /** the collector's base URL; null when off */
  endpoint: string | null;
  protocol: string;
  /** prompts and tool input and output, masked, sent */
  logContent: boolean;
  /** enabled, and the exporter can run here */
  exporting: boolean;
}

export type TerminalReason = 'completed' | 'max_turns' | 'aborted' | 'timeout' | 'permission_denied' | 'budget_exceeded' | 'fatal_tool_error' | 'model_error';

/** Answer text, coalesced (at most one notification per 50 ms, or per 4 KB). */
export interface TextEvent {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'text';
  text: string;
}

/**
 * The model's thinking, coalesced as text is; clients show it apart from the answer
 * (collapsed), or not at all.
 */
export interface ThoughtEvent {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'thought';
  text: string;
}

export interface ToolFinished {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'tool_finished';
  callId: string;
  name: string;
  summary: string;
  ok: boolean;
  /** an error code, or null */
  error: string | null;
  /** the result's first line, at most 200 characters */
  line: string;
  /** how many lines follow `line` */
  moreLines: number;
  /** a command's exit code, else null */
  exitCode: number | null;
  /** the result's `[note: …]` lines, whole */
  notes: string[];
}

export interface ToolStarted {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'tool_started';
  callId: string;
  name: string;
  /** one line, e.g. `read_file src/a.py` */
  summary: string;
}

export interface TranscriptParams {
  /** without it: the session asked last, else the newest */
  sessionId?: string | null;
}

export interface TranscriptShown {
  sessionId: string;
  uri: string;
  /** false when the editor cannot open documents */
  shown: boolean;
}

export interface UndoParams {
  sessionId: string;
  /** without it: the last ask */
  turn?: number | null;
}

export interface UndoResult {
  /** the (last) checkpointed turn undone */
  turn: number;
  /** every turn undone, oldest first */
  turns: number[];
  /** a whole ask was undone */
  ask: boolean;
  /** the ask's run, when a whole ask was undone */
  runId: string | null;
  restored: string[];
  removed: string[];
  /** files changed since: then nothing was undone */
  conflicts: string[];
  /** files not put back, the rest being undone: a link leads them out of the workspace */
  refused: string[];
  /** the undo was carried out (refused files aside) */
  done: boolean;
}

/** A run's tokens so far, and their price. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** USD; null when the price is unknown, and for a scripted model */
  costUsd: number | null;
}

export interface UsageEvent {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'usage';
  /** the run's totals so far */
  usage: Usage;
}

/**
 * A plain client's open buffers hold an accepted edit (or an undo); the run waits
 * for the person's save (at most `seconds`, then agentls writes them itself).
 */
export interface WaitingForSave {
  sessionId: string;
  runId: string;
  turn: number;
  kind: 'waiting_for_save';
  /** the files to save, relative to the workspace */
  paths: string[];
  /** how long the run waits before writing them itself */
  seconds: number;
}
