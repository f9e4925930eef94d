import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApprovalUi } from '../src/approvals/broker';
import { isPlanRequest, PlanPrompts } from '../src/approvals/plans';
import { runActivity } from '../src/chat/activity';
import { type ChatItem, type ChatState, initialState, NEW_SESSION, type ProposedPlanItem } from '../src/chat/model';
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

const started: ChatAction[] = [
  { type: 'ask_sent', localId: 'ask-1', prompt: 'fix it', sessionId: NEW_SESSION },
  { type: 'ask_started', localId: 'ask-1', sessionId: 's1', runId: 'r1' },
];

const steps = (...statuses: ('pending' | 'in_progress' | 'completed')[]) => statuses.map((status, i) => ({ step: `step ${i + 1}`, status }));

describe('plans in the chat', () => {
  it('keeps one checklist per run, each plan event replacing its steps', () => {
    const state = run([
      ...started,
      ...events([
        event('plan', { plan: steps('in_progress', 'pending'), explanation: 'two steps' }),
        event('text', { text: 'Working.' }),
        event('plan', { plan: steps('completed', 'in_progress'), explanation: '' }),
      ]),
    ]);
    const plans = items(state).filter((i) => i.type === 'plan');
    assert.equal(plans.length, 1);
    const [plan] = plans;
    assert.deepEqual(plan?.type === 'plan' && plan.steps.map((s) => s.status), ['completed', 'in_progress']);
    assert.equal(plan?.type === 'plan' && plan.explanation, '');
  });

  it('shows a proposed plan as waiting, then the mode the person switched to', () => {
    const proposed = run([...started, ...events([event('plan_proposed', { callId: 'c1', plan: '# Plan\n1. fix' })])]);
    assert.equal(runActivity(proposed.views.s1!)?.waitingFor, 'plan');
    const switched = run(events([event('mode_changed', { mode: 'accept-edits' })]), proposed);
    const card = items(switched).find((i): i is ProposedPlanItem => i.type === 'proposed_plan');
    assert.equal(card?.status, 'accept-edits');
    assert.ok(items(switched).some((i) => i.type === 'notice' && i.text.includes('accept-edits')));
  });

  it('marks a plan kept planning when its call ends without a switch, and one still open when the run ends', () => {
    const kept = run([
      ...started,
      ...events([
        event('tool_started', { callId: 'c1', name: 'propose_plan', summary: 'propose_plan' }),
        event('plan_proposed', { callId: 'c1', plan: 'first' }),
        event('tool_finished', { callId: 'c1', name: 'propose_plan', summary: 'propose_plan', ok: true, error: null, line: 'The user wants to keep planning.', moreLines: 0, exitCode: null, notes: [] }),
        event('plan_proposed', { callId: 'c2', plan: 'second' }),
        finished('completed', usage(1, 1, 0)),
      ]),
    ]);
    const cards = items(kept).filter((i): i is ProposedPlanItem => i.type === 'proposed_plan');
    assert.deepEqual(cards.map((c) => c.status), ['keep-planning', 'ended']);
  });

  it('takes a plan question that waits as code actions onto the plan card', () => {
    const state = run([
      ...started,
      ...events([
        event('plan_proposed', { callId: 'c1', plan: 'p' }),
        event('question', { id: 'c1', question: 'plan', summary: 'start on the proposed plan', detail: 'p', path: null, answers: [{ answer: 'default', title: 'Switch to default: the proposed plan' }] }),
      ]),
    ]);
    const card = items(state).find((i): i is ProposedPlanItem => i.type === 'proposed_plan');
    assert.deepEqual(card?.answers.map((a) => a.answer), ['default']);
    assert.equal(items(state).filter((i) => i.type === 'question').length, 0);
  });
});

describe('steering in the chat', () => {
  it('shows a message written during a run as queued, then read by the agent', () => {
    const state = run([
      ...started,
      { type: 'steer_sent', localId: 'ask-2', prompt: 'use pathlib', sessionId: 's1' },
      { type: 'steer_answered', localId: 'ask-2', queued: true },
      ...events([event('steered', { text: 'use pathlib' })]),
    ]);
    const steer = items(state).find((i) => i.type === 'user' && i.text === 'use pathlib');
    assert.equal(steer?.type === 'user' && steer.steer, 'delivered');
  });

  it('says a queued message was not delivered when the run ended first', () => {
    const state = run([
      ...started,
      { type: 'steer_sent', localId: 'ask-2', prompt: 'stop', sessionId: 's1' },
      ...events([finished('aborted', usage(1, 1, 0))]),
    ]);
    const steer = items(state).find((i) => i.type === 'user' && i.text === 'stop');
    assert.equal(steer?.type === 'user' && steer.steer, 'not_delivered');
  });

  it('drops the steering item when the server queued nothing (it goes as an ask instead)', () => {
    const state = run([
      ...started,
      { type: 'steer_sent', localId: 'ask-2', prompt: 'late', sessionId: 's1' },
      { type: 'steer_answered', localId: 'ask-2', queued: false },
    ]);
    assert.equal(items(state).some((i) => i.type === 'user' && i.text === 'late'), false);
  });
});

describe('plan prompts', () => {
  const TITLES = [{ title: 'Switch to default' }, { title: 'Switch to accept-edits' }, { title: 'Keep planning' }];
  const card: ProposedPlanItem = { type: 'proposed_plan', id: 'p1', runId: 'r1', callId: 'c1', markdown: 'p', status: 'pending', answers: [] };

  it('recognises the plan prompt by its exact actions', () => {
    assert.equal(isPlanRequest({ type: 2, message: 'x', actions: TITLES }), true);
    assert.equal(isPlanRequest({ type: 2, message: 'x', actions: TITLES.slice(0, 2) }), false);
    assert.equal(isPlanRequest({ type: 2, message: 'x', actions: [{ title: 'Allow once' }, { title: 'Deny' }] }), false);
  });

  it('takes the first answer: the chat card wins over an open notification', async () => {
    const never = new Promise<string | undefined>(() => undefined);
    const ui: Pick<ApprovalUi, 'notify'> = { notify: async () => never };
    const prompts = new PlanPrompts({ ui, pending: () => [card] });
    const asked = prompts.ask({ type: 2, message: 'agentls proposes a plan', actions: TITLES });
    assert.equal(prompts.answer('c1', 'Switch to accept-edits'), true);
    assert.deepEqual(await asked, { title: 'Switch to accept-edits' });
    assert.equal(prompts.answer('c1', 'Keep planning'), false);
  });

  it('answers null when the notification is closed', async () => {
    const prompts = new PlanPrompts({ ui: { notify: async () => undefined }, pending: () => [] });
    assert.equal(await prompts.ask({ type: 2, message: 'm', actions: TITLES }), null);
  });
});
