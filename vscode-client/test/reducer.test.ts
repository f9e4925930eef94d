import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runActivity } from '../src/chat/activity';
import { type ChatItem, type ChatState, initialState, NEW_SESSION, type SessionView, sessionTotals } from '../src/chat/model';
import { type ChatAction, reduce } from '../src/chat/reducer';
import type { AgentEvent } from '../src/protocol';
import { event, finished, usage } from './helpers/events';

function run(actions: ChatAction[], state: ChatState = initialState()): ChatState {
  return actions.reduce(reduce, state);
}

const events = (list: AgentEvent[]): ChatAction[] => list.map((e) => ({ type: 'event', event: e }));

function items(state: ChatState, sessionId = 's1'): ChatItem[] {
  return state.views[sessionId]?.items ?? [];
}

function started(prompt = 'list the files'): ChatAction[] {
  return [
    { type: 'ask_sent', localId: 'ask-1', prompt, sessionId: NEW_SESSION },
    { type: 'ask_started', localId: 'ask-1', sessionId: 's1', runId: 'r1' },
  ];
}

describe('chat reducer', () => {
  it('moves a new session prompt into its session and shows that session', () => {
    const state = run(started('list the files\nplease'));
    assert.equal(state.current, 's1');
    assert.deepEqual(items(state, NEW_SESSION), []);
    const [user] = items(state);
    assert.equal(user?.type, 'user');
    assert.equal(user?.type === 'user' && user.pending, false);
    assert.equal(state.views.s1?.title, 'list the files');
    assert.equal(state.views.s1?.runningRunId, 'r1');
  });

  it('puts the prompt first when the run events come before the answer to the ask', () => {
    const state = run([
      { type: 'ask_sent', localId: 'ask-1', prompt: 'hi', sessionId: NEW_SESSION },
      ...events([event('text', { text: 'Hello' })]),
      { type: 'ask_started', localId: 'ask-1', sessionId: 's1', runId: 'r1' },
    ]);
    assert.deepEqual(
      items(state).map((i) => i.type),
      ['user', 'answer'],
    );
  });

  it('appends streamed text to one answer per stretch of text', () => {
    const state = run([
      ...started(),
      ...events([
        event('text', { text: 'I will ' }),
        event('text', { text: 'look.' }),
        event('tool_started', { callId: 'c1', name: 'list_files', summary: 'list_files .' }),
        event('tool_finished', { callId: 'c1', name: 'list_files', summary: 'list_files .', ok: true, error: null, line: 'greet.py', moreLines: 0, exitCode: null, notes: [] }),
        event('text', { text: 'Found greet.py.' }, 's1', 'r1', 2),
      ]),
    ]);
    const kinds = items(state).map((i) => i.type);
    assert.deepEqual(kinds, ['user', 'answer', 'tool', 'answer']);
    const [, first, tool, second] = items(state);
    assert.equal(first?.type === 'answer' && first.markdown, 'I will look.');
    assert.equal(tool?.type === 'tool' && tool.status, 'ok');
    assert.equal(tool?.type === 'tool' && tool.line, 'greet.py');
    assert.equal(second?.type === 'answer' && second.markdown, 'Found greet.py.');
  });

  it('marks failed tool calls with their error code', () => {
    const state = run([
      ...started(),
      ...events([
        event('tool_started', { callId: 'c1', name: 'read_file', summary: 'read_file nope.py' }),
        event('tool_finished', { callId: 'c1', name: 'read_file', summary: 'read_file nope.py', ok: false, error: 'not_found', line: 'no such file', moreLines: 0, exitCode: null, notes: [] }),
      ]),
    ]);
    const tool = items(state).find((i) => i.type === 'tool');
    assert.equal(tool?.type === 'tool' && tool.status, 'failed');
    assert.equal(tool?.type === 'tool' && tool.error, 'not_found');
  });

  it('marks a command that exited non-zero as failed, with cut lines and notes said', () => {
    const state = run([
      ...started(),
      ...events([
        event('tool_started', { callId: 'c1', name: 'run_command', summary: 'run_command: pytest' }),
        event('tool_finished', {
          callId: 'c1', name: 'run_command', summary: 'run_command: pytest', ok: true, error: null,
          line: '1 failed', moreLines: 3, exitCode: 1, notes: ['1 file(s) have unsaved changes in the editor (a.py)'],
        }),
      ]),
    ]);
    const tool = items(state).find((i) => i.type === 'tool');
    assert.equal(tool?.type === 'tool' && tool.status, 'failed');
    assert.equal(tool?.type === 'tool' && tool.error, 'exit code 1');
    assert.equal(tool?.type === 'tool' && tool.line, '1 failed\n(+3 more lines)\nnote: 1 file(s) have unsaved changes in the editor (a.py)');
  });

  it('tracks an approval from asked to answered, with the rule it added', () => {
    const asked = run([
      ...started(),
      ...events([
        event('tool_started', { callId: 'c1', name: 'run_command', summary: 'run_command pytest -q' }),
        event('approval_asked', { callId: 'c1', tool: 'run_command', summary: 'pytest -q', detail: 'pytest -q', rule: 'run_command(pytest -q)' }),
      ]),
      { type: 'approval_prompted', callId: 'c1', via: 'modal' },
    ]);
    const pending = items(asked).find((i) => i.type === 'approval');
    assert.equal(pending?.type === 'approval' && pending.status, 'pending');
    assert.equal(pending?.type === 'approval' && pending.via, 'modal');
    assert.match(runActivity(asked.views.s1 as SessionView)?.text ?? '', /Waiting for you to allow this command: pytest -q \(answer in the dialog\)/);
    const answered = run(events([event('approval_answered', { callId: 'c1', answer: 'allow_always', rule: 'run_command(pytest -q)' })]), asked);
    const done = items(answered).find((i) => i.type === 'approval');
    assert.equal(done?.type === 'approval' && done.status, 'allow_always');
    assert.equal(done?.type === 'approval' && done.ruleAdded, 'run_command(pytest -q)');
  });

  it('adds no item for a wait for the person\'s save (this client saves by itself)', () => {
    const before = run(started());
    const state = run(events([event('waiting_for_save', { paths: ['a.py', 'b.py'], seconds: 120 })]), before);
    assert.deepEqual(items(state), items(before));
  });

  it('folds an approval question (code actions) into the approval it is about', () => {
    const state = run([
      ...started(),
      ...events([
        event('approval_asked', { callId: 'c1', tool: 'run_command', summary: 'ls', detail: 'ls', rule: 'run_command(ls)' }),
        event('question', {
          id: 'c1', question: 'approval', summary: 'ls', detail: 'ls', path: null,
          answers: [{ answer: 'allow_once', title: 'Allow once: ls' }, { answer: 'deny', title: 'Deny: ls' }],
        }),
        event('question_closed', { id: 'c1', answer: 'timeout' }),
      ]),
    ]);
    const approvals = items(state).filter((i) => i.type === 'approval');
    assert.equal(approvals.length, 1);
    assert.equal(approvals[0]?.type === 'approval' && approvals[0].via, 'question');
    assert.equal(approvals[0]?.type === 'approval' && approvals[0].status, 'timeout');
    assert.equal(items(state).some((i) => i.type === 'question'), false);
  });

  it('shows a review question with its diff and closes it', () => {
    const state = run([
      ...started(),
      ...events([
        event('question', {
          id: 'review-1', question: 'review', summary: 'edit a.py (+1 −1 lines)', detail: '--- a\n+++ b', path: 'a.py',
          answers: [{ answer: 'apply', title: 'Apply: edit a.py' }, { answer: 'reject', title: 'Reject: edit a.py' }],
        }),
        event('question_closed', { id: 'review-1', answer: 'apply' }),
      ]),
    ]);
    const question = items(state).find((i) => i.type === 'question');
    assert.equal(question?.type === 'question' && question.status, 'apply');
    assert.equal(question?.type === 'question' && question.path, 'a.py');
  });

  it('follows an edit from proposed to applied or rejected', () => {
    const state = run([
      ...started(),
      ...events([
        event('edit_proposed', { path: 'a.py', summary: 'edit a.py (+3 −1 lines)', review: true }),
        event('edit_applied', { path: 'a.py', summary: 'edit a.py (+3 −1 lines)', changed: true }),
        event('edit_proposed', { path: 'b.py', summary: 'create b.py (+2 −0 lines)', review: true }),
        event('edit_rejected', { path: 'b.py', reason: 'the person rejected it' }),
        event('edit_rejected', { path: 'c.py', reason: 'the person chose Reject' }),
      ]),
    ]);
    const edits = items(state).filter((i) => i.type === 'edit');
    assert.deepEqual(
      edits.map((e) => e.type === 'edit' && [e.path, e.status]),
      [['a.py', 'applied'], ['b.py', 'rejected'], ['c.py', 'rejected']],
    );
    assert.equal(edits[0]?.type === 'edit' && edits[0].changed, true);
  });

  it('ends a run: totals add up and whatever still waits is closed', () => {
    const state = run([
      ...started(),
      ...events([
        event('usage', { usage: usage(100, 20, 0.001) }),
        event('tool_started', { callId: 'c1', name: 'run_command', summary: 'sleep 9' }),
        event('approval_asked', { callId: 'c1', tool: 'run_command', summary: 'sleep 9', detail: 'sleep 9', rule: 'run_command(sleep 9)' }),
        finished('aborted', usage(150, 30, 0.002)),
      ]),
    ]);
    const view = state.views.s1;
    assert.equal(view?.runningRunId, null);
    assert.deepEqual(view && sessionTotals(view), { inputTokens: 150, outputTokens: 30, costUsd: 0.002, costUnknown: false });
    const approval = items(state).find((i) => i.type === 'approval');
    assert.equal(approval?.type === 'approval' && approval.status, 'cancelled');
    const tool = items(state).find((i) => i.type === 'tool');
    assert.equal(tool?.type === 'tool' && tool.status, 'failed');
    assert.equal(items(state).at(-1)?.type, 'run_end');
  });

  it('counts the running run in the session totals, and an unknown price stays unknown', () => {
    const first = run([...started(), ...events([finished('completed', usage(10, 5, 0.5))])]);
    const second = run(
      [
        { type: 'ask_sent', localId: 'ask-2', prompt: 'more', sessionId: 's1' },
        { type: 'ask_started', localId: 'ask-2', sessionId: 's1', runId: 'r2' },
        ...events([event('usage', { usage: usage(7, 3, null) }, 's1', 'r2')]),
      ],
      first,
    );
    const view = second.views.s1;
    assert.ok(view);
    assert.deepEqual(sessionTotals(view), { inputTokens: 17, outputTokens: 8, costUsd: 0.5, costUnknown: true });
  });

  it('reports a failed ask under its prompt', () => {
    const state = run([
      { type: 'ask_sent', localId: 'ask-1', prompt: 'hi', sessionId: NEW_SESSION },
      { type: 'ask_failed', localId: 'ask-1', message: 'agentls: no API key' },
    ]);
    assert.deepEqual(
      items(state, NEW_SESSION).map((i) => i.type),
      ['user', 'notice'],
    );
    const notice = items(state, NEW_SESSION)[1];
    assert.equal(notice?.type === 'notice' && notice.tone, 'error');
  });

  it('continues an earlier session with its cost so far', () => {
    const state = run([
      {
        type: 'show_session',
        sessionId: 'old',
        info: { sessionId: 'old', createdAt: '', workspace: '/w', firstPrompt: 'fix it', outcome: 'completed', runs: 2, costUsd: 0.25, running: false },
      },
    ]);
    assert.equal(state.current, 'old');
    assert.equal(state.views.old?.title, 'fix it');
    assert.equal(state.views.old?.done.costUsd, 0.25);
    assert.match(items(state, 'old')[0]?.type === 'notice' ? (items(state, 'old')[0] as { text: string }).text : '', /2 earlier runs/);
  });

  it('follows a run started elsewhere unless the person watches a run of their own', () => {
    const idle = run(events([event('text', { text: 'from a code action' }, 's9', 'r9')]));
    assert.equal(idle.current, 's9');
    const busy = run([...started(), ...events([event('text', { text: 'elsewhere' }, 's9', 'r9')])]);
    assert.equal(busy.current, 's1');
    assert.equal(busy.views.s9?.runningRunId, 'r9');
  });

  it('shows what a hook tells the person in the chat, an error as one', () => {
    const state = run([
      ...started(),
      ...events([
        event('hook', { event: 'PreToolUse', command: './check.sh', text: 'timed out after 5 s; the call asks you', error: true }),
        event('hook', { event: 'PostToolUse', command: './fmt.sh', text: 'formatted app.py', error: false }),
      ]),
    ]);
    const notices = items(state).filter((i) => i.type === 'notice');
    assert.deepEqual(
      notices.map((n) => n.type === 'notice' && [n.text, n.tone]),
      [
        ['PreToolUse hook `./check.sh`: timed out after 5 s; the call asks you', 'error'],
        ['PostToolUse hook `./fmt.sh`: formatted app.py', 'info'],
      ],
    );
  });

  it('ignores nothing it knows and keeps ids unique', () => {
    const state = run([...started(), ...events([event('text', { text: 'a' }), event('tool_started', { callId: 'x', name: 'search', summary: 's' })])]);
    const ids = items(state).map((i) => i.id);
    assert.equal(new Set(ids).size, ids.length);
  });
});
