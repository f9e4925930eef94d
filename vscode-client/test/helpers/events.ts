// Builders for agentls/event notifications as the server sends them (server/lsp/run_events.py).
import type { AgentEvent, TerminalReason, Usage } from '../../src/protocol';

type Payload<K extends AgentEvent['kind']> = Omit<Extract<AgentEvent, { kind: K }>, 'sessionId' | 'runId' | 'turn' | 'kind'>;

export function event<K extends AgentEvent['kind']>(kind: K, payload: Payload<K>, sessionId = 's1', runId = 'r1', turn = 1): AgentEvent {
  return { sessionId, runId, turn, kind, ...payload } as unknown as AgentEvent;
}

export function usage(inputTokens: number, outputTokens: number, costUsd: number | null): Usage {
  return { inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd };
}

export function finished(terminalReason: TerminalReason, u: Usage, sessionId = 's1', runId = 'r1'): AgentEvent {
  return event('run_finished', { terminalReason, text: 'done', turns: 2, usage: u, detail: '' }, sessionId, runId);
}
