import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyEdits, proposedFiles } from '../src/approvals/proposed';
import {
  type EditParams,
  type EditResult,
  needsConfirmation,
  type Review,
  ReviewBroker,
  type ReviewHost,
  type ReviewPhase,
  withoutConfirmation,
} from '../src/approvals/reviews';

// As server/lsp/files/lsp_workspace.py sends an edit for review (annotated hunks).
function reviewed(): EditParams & { edit: { documentChanges: unknown[] } } {
  return {
    label: 'agentls: edit greet.py (+5 −0 lines)',
    edit: {
      documentChanges: [
        {
          textDocument: { uri: 'file:///w/greet.py', version: 3 },
          edits: [{ range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }, newText: 'x\n', annotationId: 'agentls' }],
        },
      ],
      changeAnnotations: { agentls: { label: 'agentls', needsConfirmation: true, description: 'edit greet.py' } },
    },
  };
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A host that records what the person was shown; closing the preview answers it "not applied", as VS Code does. */
class FakeHost implements ReviewHost {
  phases: ReviewPhase[] = [];
  openedCount = 0;
  closedReviews: number[] = [];
  previewsClosed = 0;
  onClosePreview: () => void = () => undefined;
  private shown = deferred<void>();

  async openedHook(): Promise<void> {
    await this.shown.promise;
  }

  async opened(): Promise<void> {
    this.openedCount += 1;
    this.shown.resolve();
  }
  phase(_review: Review, phase: ReviewPhase): void {
    this.phases.push(phase);
  }
  async closePreview(): Promise<void> {
    this.previewsClosed += 1;
    this.onClosePreview();
  }
  async closed(review: Review): Promise<void> {
    this.closedReviews.push(review.id);
  }
  warn(message: string): void {
    assert.fail(message);
  }
}

/** VS Code's applyEdit: a preview for an edit that needs confirmation (answered by the test), else applied at once. */
function vscodeApply(previews: { resolve: (value: EditResult) => void }[], calls: EditParams[]) {
  return (params: EditParams): Promise<EditResult> => {
    calls.push(params);
    if (!needsConfirmation(params)) {
      return Promise.resolve({ applied: true });
    }
    const preview = deferred<EditResult>();
    previews.push(preview);
    return preview.promise;
  };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('edit reviews', () => {
  it('knows an edit that needs confirmation', () => {
    assert.equal(needsConfirmation(reviewed()), true);
    assert.equal(needsConfirmation({ edit: {} }), false);
    const plain = withoutConfirmation(reviewed());
    assert.equal(needsConfirmation(plain), false);
    assert.deepEqual(plain.edit.documentChanges, reviewed().edit.documentChanges);
  });

  it('passes an edit without annotations straight through', async () => {
    const host = new FakeHost();
    const seen: EditParams[] = [];
    const broker = new ReviewBroker(host);
    const result = await broker.handle({ edit: {} }, async (p) => (seen.push(p), { applied: true }));
    assert.deepEqual(result, { applied: true });
    assert.equal(seen.length, 1);
    assert.equal(host.openedCount, 0);
    assert.equal(broker.waiting, undefined);
  });

  it('shows the edit and waits for the person: Apply applies all of it, without a preview', async () => {
    const host = new FakeHost();
    const calls: EditParams[] = [];
    const broker = new ReviewBroker(host);
    const handled = broker.handle(reviewed(), vscodeApply([], calls));
    await host.openedHook();
    assert.equal(calls.length, 0, 'nothing goes to VS Code before the person answers');
    assert.deepEqual(host.phases, ['waiting']);
    assert.equal(broker.decide('apply'), true);
    assert.deepEqual(await handled, { applied: true });
    assert.equal(calls.length, 1);
    assert.equal(needsConfirmation(calls[0] as EditParams), false);
    assert.deepEqual(host.closedReviews, [1]);
    assert.equal(broker.waiting, undefined);
    assert.equal(broker.decide('apply'), false, 'no edit waits any more');
  });

  it('never takes a preview that applied nothing as a no: the edit waits again', async () => {
    const host = new FakeHost();
    const previews: { resolve: (value: EditResult) => void }[] = [];
    const calls: EditParams[] = [];
    const broker = new ReviewBroker(host);
    let answered: EditResult | undefined;
    const handled = broker.handle(reviewed(), vscodeApply(previews, calls)).then((r) => (answered = r));
    await host.openedHook();
    broker.decide('pick');
    await settle();
    assert.equal(previews.length, 1);
    assert.equal(needsConfirmation(calls[0] as EditParams), true, 'the preview gets the edit with its hunks to tick');
    previews[0]?.resolve({ applied: false }); // Apply with nothing ticked, or Discard
    await settle();
    assert.equal(answered, undefined, 'the server has not been answered');
    assert.deepEqual(host.phases, ['waiting', 'picking', 'nothing_picked']);
    broker.decide('pick');
    await settle();
    previews[1]?.resolve({ applied: true }); // the ticked hunks
    assert.deepEqual(await handled, { applied: true });
    assert.equal(calls.length, 2);
    assert.equal(host.previewsClosed, 0);
  });

  it('says no only for Reject, closing an open preview first', async () => {
    const host = new FakeHost();
    const previews: { resolve: (value: EditResult) => void }[] = [];
    const broker = new ReviewBroker(host);
    host.onClosePreview = () => previews[0]?.resolve({ applied: false });
    const handled = broker.handle(reviewed(), vscodeApply(previews, []));
    await host.openedHook();
    broker.decide('pick');
    await settle();
    broker.decide('reject');
    assert.deepEqual(await handled, { applied: false });
    assert.equal(host.previewsClosed, 1);
  });

  it('applies all of it from the chat while the preview is open, once', async () => {
    const host = new FakeHost();
    const previews: { resolve: (value: EditResult) => void }[] = [];
    const calls: EditParams[] = [];
    const broker = new ReviewBroker(host);
    host.onClosePreview = () => previews[0]?.resolve({ applied: false });
    const handled = broker.handle(reviewed(), vscodeApply(previews, calls));
    await host.openedHook();
    broker.decide('pick');
    await settle();
    broker.decide('apply');
    assert.deepEqual(await handled, { applied: true });
    assert.equal(calls.length, 2);
    assert.equal(needsConfirmation(calls[1] as EditParams), false);
  });

  it('keeps what the preview applied when the person answers twice', async () => {
    const host = new FakeHost();
    const previews: { resolve: (value: EditResult) => void }[] = [];
    const calls: EditParams[] = [];
    const broker = new ReviewBroker(host);
    host.onClosePreview = () => previews[0]?.resolve({ applied: true }); // applied there just before
    const handled = broker.handle(reviewed(), vscodeApply(previews, calls));
    await host.openedHook();
    broker.decide('pick');
    await settle();
    broker.decide('apply');
    assert.deepEqual(await handled, { applied: true });
    assert.equal(calls.length, 1, 'not applied a second time');
  });

  it('closes the review when its run ended: nothing is applied to a dead edit', async () => {
    const host = new FakeHost();
    const previews: { resolve: (value: EditResult) => void }[] = [];
    const calls: EditParams[] = [];
    const broker = new ReviewBroker(host);
    host.onClosePreview = () => previews[0]?.resolve({ applied: false });
    const handled = broker.handle(reviewed(), vscodeApply(previews, calls));
    await host.openedHook();
    broker.decide('pick');
    await settle();
    broker.decide('ended');
    const result = await handled;
    assert.equal(result.applied, false);
    assert.match(result.failureReason ?? '', /run ended/);
    assert.equal(host.previewsClosed, 1);
    assert.deepEqual(host.closedReviews, [1]);
    assert.equal(calls.length, 1);
  });

  it('says why when VS Code refuses the Apply (the file changed meanwhile)', async () => {
    const host = new FakeHost();
    const broker = new ReviewBroker(host);
    const handled = broker.handle(reviewed(), async (): Promise<EditResult> => ({ applied: false }));
    await host.openedHook();
    broker.decide('apply');
    const result = await handled;
    assert.equal(result.applied, false);
    assert.match(result.failureReason ?? '', /file changed while the edit waited/);
  });
});

describe('the proposed text of an edit', () => {
  it('applies whole-line hunks and a column at the end of a file', () => {
    const before = 'a\nb\nc';
    const edits = [
      { range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } }, newText: 'B\nB2\n' },
      { range: { start: { line: 2, character: 1 }, end: { line: 2, character: 1 } }, newText: '\n' },
    ];
    assert.equal(applyEdits(before, edits), 'a\nB\nB2\nc\n');
    assert.equal(applyEdits('x\r\ny\r\n', [{ range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } }, newText: '' }]), 'x\r\n');
  });

  it('gives each file its text before and after, a created file from nothing', () => {
    const files = proposedFiles(
      {
        documentChanges: [
          { kind: 'create', uri: 'file:///w/new.py' },
          { textDocument: { uri: 'file:///w/new.py', version: null }, edits: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: 'print(1)\n' }] },
          ...reviewed().edit.documentChanges,
        ],
      },
      (uri) => (uri === 'file:///w/greet.py' ? 'one\ntwo\nthree\n' : undefined),
    );
    assert.deepEqual(files, [
      { uri: 'file:///w/new.py', created: true, before: '', after: 'print(1)\n' },
      { uri: 'file:///w/greet.py', created: false, before: 'one\ntwo\nthree\n', after: 'one\ntwo\nx\nthree\n' },
    ]);
  });
});
