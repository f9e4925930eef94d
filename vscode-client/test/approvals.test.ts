import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApprovalBroker, type ApprovalUi } from '../src/approvals/broker';
import { dialogText, isApprovalRequest, parseApprovalMessage, shouldBeModal } from '../src/approvals/prompt';
import type { ApprovalItem } from '../src/chat/model';
import { isMirroredInChat } from '../src/client/mirrored';
import type { ModalApprovals } from '../src/settings/serverSettings';

// As server/lsp/asking/approvals.py writes it.
const MESSAGE = 'agentls wants to use run_command:\npytest -q && rm -rf build\n\nAlways allow adds the rule run_command(pytest -q), run_command(rm -rf build).';
const ACTIONS = [{ title: 'Allow once' }, { title: 'Always allow' }, { title: 'Deny' }];

function pending(overrides: Partial<ApprovalItem> = {}): ApprovalItem {
  return {
    type: 'approval', id: 'a1', runId: 'r1', callId: 'c1', tool: 'run_command', summary: 'pytest -q && rm -rf build',
    detail: 'pytest -q && rm -rf build', rule: 'run_command(pytest -q), run_command(rm -rf build)', status: 'pending',
    via: null, answers: [], ruleAdded: null, ...overrides,
  };
}

interface Shown {
  kind: 'modal' | 'notify';
  message: string;
  detail?: string;
  titles: readonly string[];
}

function fakeUi(answer: string | undefined | Promise<string | undefined>, shown: Shown[]): ApprovalUi {
  return {
    modal: async (message, detail, titles) => (shown.push({ kind: 'modal', message, detail, titles }), answer),
    notify: async (message, titles) => (shown.push({ kind: 'notify', message, titles }), answer),
  };
}

function broker(ui: ApprovalUi, items: ApprovalItem[], setting: ModalApprovals = 'commands', prompted: [string, string][] = []) {
  return new ApprovalBroker({ ui, pending: () => items, modalSetting: () => setting, prompted: (id, via) => prompted.push([id, via]) });
}

describe('approval prompts', () => {
  it('recognises the approval prompt by its exact actions', () => {
    assert.equal(isApprovalRequest({ type: 2, message: MESSAGE, actions: ACTIONS }), true);
    assert.equal(isApprovalRequest({ type: 2, message: 'x', actions: [{ title: 'Apply' }, { title: 'Show diff' }, { title: 'Reject' }] }), false);
    assert.equal(isApprovalRequest({ type: 2, message: 'x', actions: null }), false);
    assert.equal(isApprovalRequest({ type: 2, message: 'x', actions: [{ title: 'Allow once' }, { title: 'Deny' }] }), true);
    assert.equal(isApprovalRequest({ type: 2, message: 'x', actions: [{ title: 'Allow once' }, { title: 'Always allow' }] }), false);
    assert.equal(isApprovalRequest({ type: 2, message: 'x', actions: [{ title: 'Deny' }, { title: 'Allow once' }] }), false);
  });

  it('offers only the titles the server sent: no Always allow without a rule', async () => {
    const shown: Shown[] = [];
    const message = "agentls wants to use run_command:\npython3 -c 'print(1)'";
    const actions = [{ title: 'Allow once' }, { title: 'Deny' }];
    const b = broker(fakeUi('Always allow', shown), [pending({ rule: '' })]);
    assert.equal(await b.ask({ type: 2, message, actions }), null);
    assert.deepEqual(shown[0]?.titles, ['Allow once', 'Deny']);
  });

  it('reads the tool, the command and the rule from the message', () => {
    assert.deepEqual(parseApprovalMessage(MESSAGE), {
      tool: 'run_command',
      shown: 'pytest -q && rm -rf build',
      rule: 'run_command(pytest -q), run_command(rm -rf build)',
    });
    assert.deepEqual(parseApprovalMessage('something else'), { tool: '', shown: 'something else', rule: '' });
  });

  it('makes command approvals modal by default', () => {
    assert.equal(shouldBeModal('run_command', 'commands'), true);
    assert.equal(shouldBeModal('read_file', 'commands'), false);
    assert.equal(shouldBeModal('read_file', 'all'), true);
    assert.equal(shouldBeModal('run_command', 'none'), false);
  });

  it('shows the whole command in the modal', () => {
    const long = 'python - <<EOF\n' + 'print(1)\n'.repeat(50) + 'EOF';
    const text = dialogText(parseApprovalMessage(MESSAGE), pending({ detail: long }));
    assert.equal(text.message, 'agentls wants to run a command');
    assert.ok(text.detail.startsWith(long));
    assert.match(text.detail, /Always allow" adds the rule run_command\(pytest -q\)/);
  });

  it('asks a command in a modal dialog and answers with the chosen title', async () => {
    const shown: Shown[] = [];
    const prompted: [string, string][] = [];
    const answer = await broker(fakeUi('Always allow', shown), [pending()], 'commands', prompted).ask({ type: 2, message: MESSAGE, actions: ACTIONS });
    assert.deepEqual(answer, { title: 'Always allow' });
    assert.equal(shown[0]?.kind, 'modal');
    assert.deepEqual(shown[0]?.titles, ['Allow once', 'Always allow', 'Deny']);
    assert.deepEqual(prompted, [['c1', 'modal']]);
  });

  it('asks other tools in a notification', async () => {
    const shown: Shown[] = [];
    const item = pending({ tool: 'read_file', summary: 'read_file .env', detail: '' });
    const message = 'agentls wants to use read_file:\nread_file .env\n\nAlways allow adds the rule read_file(.env).';
    const answer = await broker(fakeUi('Deny', shown), [item]).ask({ type: 2, message, actions: ACTIONS });
    assert.deepEqual(answer, { title: 'Deny' });
    assert.equal(shown[0]?.kind, 'notify');
    assert.equal(shown[0]?.message, message);
  });

  it('takes the answer from the chat view when it comes first', async () => {
    const never = new Promise<string | undefined>(() => undefined);
    const b = broker(fakeUi(never, []), [pending({ tool: 'read_file' })]);
    const asked = b.ask({ type: 2, message: 'agentls wants to use read_file:\n.env', actions: ACTIONS });
    await Promise.resolve();
    assert.equal(b.waiting('c1'), true);
    assert.equal(b.answer('c1', 'Allow once'), true);
    assert.deepEqual(await asked, { title: 'Allow once' });
    assert.equal(b.waiting('c1'), false);
    assert.equal(b.answer('c1', 'Deny'), false);
  });

  it('answers null (Deny) when the prompt is dismissed', async () => {
    assert.equal(await broker(fakeUi(undefined, []), [pending()]).ask({ type: 2, message: MESSAGE, actions: ACTIONS }), null);
  });

  it('still asks when no approval_asked event was seen', async () => {
    const shown: Shown[] = [];
    const answer = await broker(fakeUi('Allow once', shown), []).ask({ type: 2, message: MESSAGE, actions: ACTIONS });
    assert.deepEqual(answer, { title: 'Allow once' });
    assert.equal(shown[0]?.kind, 'modal');
    assert.match(shown[0]?.detail ?? '', /pytest -q && rm -rf build/);
  });

  it('keeps to the log only the messages the chat view already shows', () => {
    assert.equal(isMirroredInChat({ type: 3, message: 'agentls answered: I added shout().' }), true);
    assert.equal(isMirroredInChat({ type: 3, message: 'agentls: aborted: the run was cancelled' }), true);
    assert.equal(isMirroredInChat({ type: 3, message: 'agentls: undid turn 2: restored a.py' }), true);
    assert.equal(isMirroredInChat({ type: 2, message: 'agentls: budget_exceeded: tokens' }), false);
    assert.equal(isMirroredInChat({ type: 1, message: 'agentls: bad settings: maxTurns' }), false);
    assert.equal(isMirroredInChat({ type: 3, message: 'agentls: this editor cannot show prompts' }), false);
  });
});
