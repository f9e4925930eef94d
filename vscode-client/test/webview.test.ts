import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chatHtml, contentSecurityPolicy, newNonce } from '../src/chat/html';
import { webviewModel } from '../src/chat/messages';
import { initialState } from '../src/chat/model';
import { runEndNumbers } from '../src/chat/numbers';
import { reduce } from '../src/chat/reducer';
import { contextLabel } from '../src/client/asks';
import { sessionLabel, undoSummary, whenText } from '../src/commands/sessionLabels';
import { asAgentEvent, type UndoResult } from '../src/protocol';
import { renderMarkdown } from '../src/webview/markdown';

describe('chat webview', () => {
  it('allows no remote resource and only the nonce-d script', () => {
    const csp = contentSecurityPolicy('vscode-webview://abc', 'N0NCE');
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'nonce-N0NCE'/);
    assert.doesNotMatch(csp, /https?:|unsafe-inline|unsafe-eval|\*/);
  });

  it('puts the CSP and the nonce into the page', () => {
    const html = chatHtml({ cspSource: 'vscode-webview://abc', nonce: 'N0NCE', scriptUri: 'vscode-webview://abc/out/webview.js', styleUri: 'x.css' });
    assert.match(html, /<meta http-equiv="Content-Security-Policy" content="default-src 'none'/);
    assert.match(html, /<script nonce="N0NCE" src="vscode-webview:\/\/abc\/out\/webview.js"><\/script>/);
    assert.equal((html.match(/<script/g) ?? []).length, 1);
    assert.match(html, /role="log"/);
  });

  it('makes a new nonce every time', () => {
    assert.notEqual(newNonce(), newNonce());
    assert.match(newNonce(), /^[A-Za-z0-9_-]{24}$/);
  });

  it('renders markdown but never the model\'s HTML or script links', () => {
    const html = renderMarkdown('**bold** `code`\n\n<img src=x onerror=alert(1)>\n\n[x](javascript:alert(1)) [y](https://example.com)');
    assert.match(html, /<strong>bold<\/strong>/);
    assert.match(html, /<code>code<\/code>/);
    assert.doesNotMatch(html, /<img/);
    assert.match(html, /&lt;img/);
    assert.doesNotMatch(html, /href="javascript/);
    assert.match(html, /href="https:\/\/example.com"/);
  });

  it('builds the model: session choices and usage of the session on screen', () => {
    let state = reduce(initialState(), {
      type: 'sessions_listed',
      sessions: [{ sessionId: 's0', createdAt: '2026-01-01T00:00:00Z', workspace: '/w', firstPrompt: 'old work', outcome: 'completed', runs: 1, costUsd: 0.1, running: false }],
    });
    state = reduce(state, { type: 'ask_sent', localId: 'a', prompt: 'new work', sessionId: '' });
    state = reduce(state, { type: 'ask_started', localId: 'a', sessionId: 's1', runId: 'r1' });
    const model = webviewModel(state, new Date('2026-01-02T00:00:00Z'));
    assert.deepEqual(model.sessions.map((s) => s.id), ['', 's1', 's0']);
    assert.equal(model.sessionId, 's1');
    assert.equal(model.running, true);
    assert.match(model.sessions[2]?.label ?? '', /^old work — 2026-01-01 · completed · 1 run · \$0.1000$/);
  });

  it('labels sessions and times', () => {
    const now = new Date('2026-01-01T12:00:00Z');
    assert.equal(whenText('2026-01-01T11:58:00Z', now), '2 min ago');
    assert.equal(whenText('2026-01-01T09:00:00Z', now), '3 h ago');
    const label = sessionLabel({ sessionId: 'id', createdAt: '2026-01-01T12:00:00Z', workspace: '', firstPrompt: '', outcome: null, runs: 0, costUsd: null, running: true }, now);
    assert.deepEqual(label, { label: '(no prompt)', description: 'just now · running · 0 runs', detail: 'id' });
  });

  it('says what an undo did', () => {
    // As the server answers agentls.undo (UndoResult in docs/protocol.schema.json).
    const undone = (turn: number, more: Partial<UndoResult>): UndoResult => ({
      turn, turns: [turn], ask: false, runId: null, restored: [], removed: [], conflicts: [], refused: [], done: true, ...more,
    });
    assert.equal(undoSummary(undone(2, { restored: ['a.py'], removed: ['t.py'] })), 'Undid turn 2: restored a.py; removed t.py.');
    assert.equal(undoSummary(undone(1, {})), 'Undid turn 1: nothing had changed.');
    assert.match(undoSummary(undone(3, { conflicts: ['a.py'], done: false })), /stopped: a.py changed since/);
    assert.equal(
      undoSummary(undone(2, { restored: ['top.py'], refused: ['sub', 'sub/a.py'] })),
      'Undid only part of turn 2: restored top.py; refused sub, sub/a.py: a link now leads out of the workspace there, so they are left as they are.',
    );
    assert.equal(
      undoSummary(undone(2, { turns: [1, 2], ask: true, runId: 'run-1', restored: ['a.py'], removed: ['copy.py'] })),
      'Undid the last ask (turns 1–2): restored a.py; removed copy.py.',
    );
  });

  it('writes the numbers of a run as the CLI does', () => {
    const usage = { inputTokens: 1000, outputTokens: 132, cacheReadTokens: 0, cacheWriteTokens: 0 };
    assert.equal(runEndNumbers(5, { ...usage, costUsd: 0.005 }), ' · 5 turns · 1,000 in / 132 out tokens · $0.0050');
    assert.equal(runEndNumbers(1, { ...usage, costUsd: null }), ' · 1 turn · 1,000 in / 132 out tokens');
  });

  it('labels what an ask attached', () => {
    assert.equal(contextLabel({ prompt: 'p' }), undefined);
    assert.equal(contextLabel({ prompt: 'p', uri: 'file:///w/my%20file.py' }), 'my file.py');
    assert.equal(contextLabel({ prompt: 'p', uri: 'file:///w/a.py', range: { start: { line: 2, character: 0 }, end: { line: 5, character: 3 } } }), 'a.py:3-6');
    assert.equal(contextLabel({ prompt: 'p', uri: 'file:///w/a.py', images: [{ data: 'AA==', name: 'shot.png' }, { data: 'AA==' }] }), 'a.py, shot.png, image 2');
  });

  it('accepts the events it knows and drops the rest', () => {
    assert.equal(asAgentEvent({ sessionId: 's', runId: 'r', turn: 1, kind: 'text', text: 'x' })?.kind, 'text');
    assert.equal(asAgentEvent({ sessionId: 's', kind: 'something_new' }), undefined);
    assert.equal(asAgentEvent(null), undefined);
    assert.equal(asAgentEvent({ kind: 'text' }), undefined);
  });
});
