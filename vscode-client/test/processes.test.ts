import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { processLine } from '../src/chat/reducer';
import { processItems } from '../src/commands/processItems';
import type { AgentEvent } from '../src/protocol';

describe('background processes', () => {
  it('lists running ones first, each with its state and session', () => {
    const items = processItems({
      processes: [
        {
          sessionId: 's1', id: 'p1', command: 'npm run build', state: 'exited', exitCode: 0,
          startedAt: '2026-12-01T10:00:00+00:00', runId: 'run-1', sandbox: 'session',
        },
        {
          sessionId: 's1', id: 'p2', command: 'python3 -m http.server', state: 'running', exitCode: null,
          startedAt: '2026-12-01T10:05:09+00:00', runId: 'run-2', sandbox: 'none',
        },
      ],
      stopped: null,
    });
    assert.deepEqual(items.map((i) => [i.id, i.description, i.running]), [
      ['p2', 'p2 · running', true],
      ['p1', 'p1 · exited (exit code 0)', false],
    ]);
    assert.equal(items[0]?.detail, 'session s1 · since 10:05:09 · no sandbox');
    assert.deepEqual(processItems(null), []);
  });

  it('says what happened to one in the chat', () => {
    const event = (action: 'started' | 'exited' | 'stopped', more: object = {}): Extract<AgentEvent, { kind: 'process' }> => ({
      kind: 'process', sessionId: 's1', runId: 'run-1', turn: 1, id: 'p1', action, command: 'make watch',
      state: action === 'started' ? 'running' : action, exitCode: null, by: null, sandbox: 'session', ...more,
    });
    assert.equal(processLine(event('started')), 'Background process p1 started: make watch');
    assert.equal(processLine(event('exited', { exitCode: 2 })), 'Background process p1 exited (exit code 2): make watch');
    assert.equal(processLine(event('stopped', { by: 'person' })), 'Background process p1 stopped (person): make watch');
  });
});
