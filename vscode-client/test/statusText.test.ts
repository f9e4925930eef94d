import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ChatState, initialState } from '../src/chat/model';
import { type ChatAction, reduce } from '../src/chat/reducer';
import { formatCost, formatTokens, statusText } from '../src/status/statusText';
import { webviewModel } from '../src/chat/messages';
import { event, finished, usage } from './helpers/events';

function state(actions: ChatAction[]): ChatState {
  return actions.reduce(reduce, reduce(initialState(), { type: 'server', state: 'running' }));
}

const start: ChatAction[] = [
  { type: 'ask_sent', localId: 'a', prompt: 'go', sessionId: '' },
  { type: 'ask_started', localId: 'a', sessionId: 's1', runId: 'r1' },
];

describe('status bar text', () => {
  it('formats tokens and cost', () => {
    assert.equal(formatTokens(999), '999');
    assert.equal(formatTokens(1234), '1.2k');
    assert.equal(formatTokens(45_678), '46k');
    assert.equal(formatTokens(2_500_000), '2.5M');
    assert.equal(formatCost({ inputTokens: 0, outputTokens: 0, costUsd: 0.01234, costUnknown: false }), '$0.0123');
    assert.equal(formatCost({ inputTokens: 0, outputTokens: 0, costUsd: 3.456, costUnknown: false }), '$3.46');
    assert.equal(formatCost({ inputTokens: 0, outputTokens: 0, costUsd: 1, costUnknown: true }), '');
  });

  it('writes a session\'s cost as the session picker does, and none where the picker has none', () => {
    const info = (costUsd: number | null) => ({
      sessionId: 's1', createdAt: '2026-01-01T00:00:00Z', workspace: '/w', firstPrompt: 'go', outcome: 'completed', runs: 1, costUsd, running: false,
    });
    // A scripted run: the server sends no price in its events nor in the session list.
    const scripted = state([...start, { type: 'event', event: finished('completed', usage(1000, 132, null)) }, { type: 'sessions_listed', sessions: [info(null)] }]);
    const model = webviewModel(scripted, new Date('2026-01-01T00:00:00Z'));
    assert.equal(model.usage, '1.1k tokens');
    assert.doesNotMatch(model.sessions[1]?.label ?? '', /\$|unknown/);
    assert.doesNotMatch(statusText(scripted).text, /unknown/);
  });

  it('takes a finished session\'s cost from the session list, so the header shows what the picker shows', () => {
    const info = (costUsd: number | null) => ({
      sessionId: 's1', createdAt: '2026-01-01T00:00:00Z', workspace: '/w', firstPrompt: 'go', outcome: 'completed', runs: 1, costUsd, running: false,
    });
    const priced = state([...start, { type: 'event', event: finished('completed', usage(1000, 132, 0.0049)) }, { type: 'sessions_listed', sessions: [info(0.005)] }]);
    const shown = webviewModel(priced, new Date('2026-01-01T00:00:00Z'));
    assert.equal(shown.usage, '1.1k tokens · $0.0050');
    assert.match(shown.sessions[1]?.label ?? '', /\$0\.0050/);
    assert.match(statusText(priced).text, /\$0\.0050/);
  });

  it('is quiet before the first ask and opens the chat on click', () => {
    const status = statusText(state([]));
    assert.equal(status.text, '$(hubot) agentls');
    assert.equal(status.action, 'focus');
  });

  it('shows a running run with its tokens and cost, and a click cancels', () => {
    const status = statusText(state([...start, { type: 'event', event: event('usage', { usage: usage(1000, 234, 0.0123) }) }]));
    assert.equal(status.text, '$(loading~spin) agentls: running · 1.2k tokens · $0.0123');
    assert.equal(status.action, 'cancel');
    assert.match(status.tooltip, /Session s1/);
    assert.match(status.tooltip, /1,000 in \/ 234 out tokens/);
  });

  it('asks for attention while an approval waits', () => {
    const status = statusText(
      state([
        ...start,
        { type: 'event', event: event('approval_asked', { callId: 'c', tool: 'run_command', summary: 'ls', detail: 'ls', rule: 'run_command(ls)' }) },
      ]),
    );
    assert.match(status.text, /approval needed/);
    assert.equal(status.warning, true);
    assert.equal(status.action, 'cancel');
  });

  it('keeps the session totals after the run', () => {
    const status = statusText(state([...start, { type: 'event', event: finished('completed', usage(2000, 500, 0.02)) }]));
    assert.equal(status.text, '$(hubot) agentls · 2.5k tokens · $0.0200');
    assert.equal(status.action, 'focus');
  });

  it('offers a restart when the server failed', () => {
    const failed = reduce(initialState(), { type: 'server', state: 'failed', message: 'cannot find agentls' });
    const status = statusText(failed);
    assert.equal(status.action, 'restart');
    assert.match(status.tooltip, /cannot find agentls/);
  });
});
