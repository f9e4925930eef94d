// Rewind and "edit and ask again" in the chat: what the confirmation names, which
// prompts may be edited, and the runs a rewind took back struck through.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { webviewModel } from '../src/chat/messages';
import { type ChatState, initialState, NEW_SESSION } from '../src/chat/model';
import { type ChatAction, reduce } from '../src/chat/reducer';
import { askLabel, rewindConfirmation } from '../src/commands/rewindText';
import { sessionLabel } from '../src/commands/sessionLabels';
import type { RewindResult } from '../src/protocol';
import { event, finished, usage } from './helpers/events';

function run(actions: ChatAction[], state: ChatState = initialState()): ChatState {
  return actions.reduce(reduce, state);
}

function ask(n: number, sessionId = n === 1 ? NEW_SESSION : 's1'): ChatAction[] {
  return [
    { type: 'ask_sent', localId: `a${n}`, prompt: `ask ${n}`, sessionId },
    { type: 'ask_started', localId: `a${n}`, sessionId: 's1', runId: `r${n}` },
    { type: 'event', event: event('text', { text: `answer ${n}` }, 's1', `r${n}`) },
    { type: 'event', event: finished('completed', usage(10, 5, null), 's1', `r${n}`) },
  ];
}

const PREVIEW: RewindResult = {
  ask: 2, asks: [2, 3], runs: ['r2', 'r3'], prompts: ['make made.txt', 'A to 3'],
  conversation: true, files: true, turns: [2, 3], restored: ['a.py'], removed: ['made.txt'],
  kept: ['b.py'], refused: [], dryRun: true, summary: 'rewinding to before ask 2 would take back …',
};

describe('rewind in the chat', () => {
  it('names in the confirmation every ask and file it undoes, and what it keeps', () => {
    assert.equal(
      rewindConfirmation(PREVIEW),
      [
        'Takes back ask 2 “make made.txt” and ask 3 “A to 3”: the model will no longer see them.',
        'Puts the files back as they were before ask 2: restores a.py; removes made.txt.',
        'Keeps b.py as it is: changed since, so not put back.',
      ].join('\n'),
    );
    const filesOnly = { ...PREVIEW, conversation: false, asks: [], restored: [], removed: [], kept: [] };
    assert.equal(rewindConfirmation(filesOnly), 'No file needs putting back.');
    const talkOnly = { ...PREVIEW, files: false, asks: [3], prompts: ['A to 3'] };
    assert.equal(rewindConfirmation(talkOnly), 'Takes back ask 3 “A to 3”: the model will no longer see it.');
  });

  it('says in the session picker which sessions are forks', () => {
    const info = { sessionId: 'f', createdAt: '2026-01-01T00:00:00Z', workspace: '/w', firstPrompt: 'first', outcome: 'completed', runs: 2, costUsd: null, running: false };
    const now = new Date('2026-01-02T00:00:00Z');
    assert.equal(sessionLabel({ ...info, forkedFrom: 's', forkedAtAsk: 2 }, now).description, '2026-01-01 · completed · 2 runs · fork before ask 2');
    assert.equal(sessionLabel({ ...info, forkedFrom: 's' }, now).description, '2026-01-01 · completed · 2 runs · fork');
    assert.equal(sessionLabel(info, now).description, '2026-01-01 · completed · 2 runs');
  });

  it('labels asks by their number, as agentls show prints them', () => {
    const label = askLabel({ ask: 4, runId: 'r4', prompt: `fix it\nplease ${'x'.repeat(80)}`, outcome: 'completed', rewound: false });
    assert.deepEqual(label, { label: 'Ask 4: fix it', description: 'completed' });
  });

  it('offers Edit on a finished prompt only while no run goes, and strikes through what a rewind took back', () => {
    let state = run([...ask(1), ...ask(2), ...ask(3)]);
    let items = webviewModel(state).items;
    const prompts = items.filter((item) => item.type === 'user');
    assert.deepEqual(prompts.map((item) => item.editable), [true, true, true]);

    state = run([{ type: 'rewound', sessionId: 's1', runs: ['r2', 'r3'] }], state);
    items = webviewModel(state).items;
    const struck = items.filter((item) => item.rewound).map((item) => item.type);
    assert.deepEqual(struck, ['user', 'answer', 'run_end', 'user', 'answer', 'run_end']);
    assert.deepEqual(items.filter((item) => item.type === 'user').map((item) => item.editable ?? false), [true, false, false]);

    state = run([
      { type: 'ask_sent', localId: 'a4', prompt: 'ask 4', sessionId: 's1' },
      { type: 'ask_started', localId: 'a4', sessionId: 's1', runId: 'r4' },
    ], state);
    assert.ok(webviewModel(state).items.every((item) => !item.editable)); // a run goes
    state = run([{ type: 'rewound', sessionId: 's1', runs: ['r2'] }], state);
    assert.deepEqual(state.views.s1?.rewoundRuns, ['r2', 'r3']); // each run once
  });
});
