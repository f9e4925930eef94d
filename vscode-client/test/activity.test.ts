import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runActivity, waitingCount } from '../src/chat/activity';
import { type ChatState, editsSettled, initialState, NEW_SESSION, type SessionView } from '../src/chat/model';
import { type ChatAction, reduce } from '../src/chat/reducer';
import { statusText } from '../src/status/statusText';
import type { AgentEvent } from '../src/protocol';
import { event, finished, usage } from './helpers/events';

function run(actions: ChatAction[], state: ChatState = reduce(initialState(), { type: 'server', state: 'running' })): ChatState {
  return actions.reduce(reduce, state);
}

const events = (list: AgentEvent[]): ChatAction[] => list.map((e) => ({ type: 'event', event: e }));

const started: ChatAction[] = [
  { type: 'ask_sent', localId: 'ask-1', prompt: 'add shout', sessionId: NEW_SESSION },
  { type: 'ask_started', localId: 'ask-1', sessionId: 's1', runId: 'r1' },
];

function view(state: ChatState): SessionView {
  const found = state.views.s1;
  assert.ok(found);
  return found;
}

describe('what the run is doing', () => {
  it('is nothing between runs', () => {
    assert.equal(runActivity(view(run([...started, ...events([finished('completed', usage(1, 1, 0))])]))), null);
  });

  it('waits for the model after the ask and after each tool', () => {
    assert.deepEqual(runActivity(view(run(started))), { kind: 'thinking', text: 'Thinking…' });
    const afterTool = run([
      ...started,
      ...events([
        event('tool_started', { callId: 'c1', name: 'read_file', summary: 'read_file greet.py' }),
        event('tool_finished', { callId: 'c1', name: 'read_file', summary: 'read_file greet.py', ok: true, error: null, line: 'x', moreLines: 0, exitCode: null, notes: [] }),
      ]),
    ]);
    assert.equal(runActivity(view(afterTool))?.kind, 'thinking');
    assert.equal(runActivity(view(run(events([event('text', { text: 'I will' })]), afterTool)))?.text, 'Writing…');
  });

  it('names the tool that runs, a long command too', () => {
    const state = run([...started, ...events([event('tool_started', { callId: 'c1', name: 'run_command', summary: 'run_command: sleep 30' })])]);
    assert.deepEqual(runActivity(view(state)), { kind: 'tool', text: 'Running run_command: sleep 30' });
    assert.match(statusText(state).text, /agentls: running/);
  });

  it('says the run waits for the person at an approval, in the chat, the status bar and the badge', () => {
    const state = run([
      ...started,
      ...events([
        event('tool_started', { callId: 'c1', name: 'run_command', summary: 'run_command: pytest' }),
        event('approval_asked', { callId: 'c1', tool: 'run_command', summary: 'run_command: pytest', detail: 'pytest', rule: 'run_command(pytest)' }),
      ]),
    ]);
    const activity = runActivity(view(state));
    assert.equal(activity?.waitingFor, 'approval');
    assert.equal(activity?.text, 'Waiting for you to allow this command: pytest');
    const status = statusText(state);
    assert.match(status.text, /approval needed/);
    assert.equal(status.warning, true);
    assert.equal(waitingCount(state), 1);
  });

  it('says an edit waits for its review, and no longer once it is applied', () => {
    const proposed = run([
      ...started,
      ...events([
        event('tool_started', { callId: 'c1', name: 'edit_file', summary: 'edit_file greet.py' }),
        event('edit_proposed', { path: 'greet.py', summary: 'edit greet.py (+4 −0 lines)', review: true }),
      ]),
    ]);
    assert.equal(runActivity(view(proposed))?.text, 'Waiting for you to review the edit to greet.py: Apply or Reject');
    assert.match(statusText(proposed).text, /review needed/);
    assert.equal(waitingCount(proposed), 1);
    const applied = run(events([event('edit_applied', { path: 'greet.py', summary: 'edit greet.py (+4 −0 lines)', changed: false })]), proposed);
    assert.equal(runActivity(view(applied))?.kind, 'tool');
    assert.equal(waitingCount(applied), 0);
  });

  it('keeps a review phase on the edit cards it names, only while they wait', () => {
    const proposed = run([...started, ...events([event('edit_proposed', { path: 'greet.py', summary: 'edit greet.py', review: true })])]);
    const card = view(proposed).items.find((item) => item.type === 'edit');
    assert.ok(card);
    const picked = run([{ type: 'review_phase', ids: [card.id], phase: 'nothing_picked' }], proposed);
    const after = view(picked).items.find((item) => item.id === card.id);
    assert.equal(after?.type === 'edit' && after.phase, 'nothing_picked');
    const rejected = run(events([event('edit_rejected', { path: 'greet.py', reason: 'the person rejected it' })]), picked);
    const late = run([{ type: 'review_phase', ids: [card.id], phase: 'picking' }], rejected);
    const closed = view(late).items.find((item) => item.id === card.id);
    assert.equal(closed?.type === 'edit' && closed.status, 'rejected');
    assert.equal(closed?.type === 'edit' && closed.phase, 'nothing_picked');
  });

  it('knows when a review is over without its answer: the server stopped waiting, or the run ended', () => {
    const proposed = run([...started, ...events([event('edit_proposed', { path: 'greet.py', summary: 'edit greet.py', review: true })])]);
    const ids = view(proposed).items.filter((item) => item.type === 'edit').map((item) => item.id);
    assert.equal(editsSettled(proposed, ids), false);
    assert.equal(editsSettled(proposed, []), false, 'no cards known: not over');
    const timedOut = run(events([event('edit_rejected', { path: 'greet.py', reason: 'the editor did not answer' })]), proposed);
    assert.equal(editsSettled(timedOut, ids), true);
    const cancelled = run(events([finished('aborted', usage(1, 1, 0))]), proposed);
    assert.equal(editsSettled(cancelled, ids), true);
  });
});
