// The server's side of the contract (docs/protocol.md), as the client reads it.
// Only types and names: no vscode, no IO, so tests and the webview can use it.
// The message shapes are generated from the server's schema (protocol.generated.ts);
// what is written here are the client's own helpers around them.
import { type AgentEvent, type CommandName, EVENT_KINDS, type Mode } from './protocol.generated';

export * from './protocol.generated';
export * from './protocol-log.generated';

export const COMMANDS = {
  ask: 'agentls.ask',
  cancel: 'agentls.cancel',
  sessions: 'agentls.sessions',
  showTranscript: 'agentls.showTranscript',
  setMode: 'agentls.setMode',
  answer: 'agentls.answer',
  showDiff: 'agentls.showDiff',
  steer: 'agentls.steer',
  // {sessionId} puts back everything the last ask not yet undone changed, over all its
  // turns; {sessionId, turn} only that turn (see UndoResult). Undo Last Ask is shown only
  // when the server advertises this command.
  undo: 'agentls.undo',
  // A session's asks, numbered as `agentls show` prints them; a rewind to one of them
  // (by number or run id, `dryRun` to preview); a fork before one of them (RewindResult,
  // Forked). Rewind and Fork are shown only when the server advertises agentls.rewind.
  asks: 'agentls.asks',
  rewind: 'agentls.rewind',
  fork: 'agentls.fork',
  // {uri?}: the prompt commands (`/name` files) an ask in that folder may start with.
  commands: 'agentls.commands',
} as const satisfies Record<string, CommandName>;

export const MODES = ['default', 'accept-edits', 'plan', 'bypass'] as const satisfies readonly Mode[];

export type EventKind = AgentEvent['kind'];

const KINDS: ReadonlySet<string> = new Set<EventKind>(EVENT_KINDS);

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

/** A proposed plan's prompt actions, titled exactly so by the server. */
export const PLAN_TITLES = ['Switch to default', 'Switch to accept-edits', 'Keep planning'] as const;
export type PlanTitle = (typeof PLAN_TITLES)[number];

export const PLAN_ANSWER_OF: Record<PlanTitle, string> = {
  'Switch to default': 'default',
  'Switch to accept-edits': 'accept-edits',
  'Keep planning': 'keep-planning',
};
