import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type EditParams, needsConfirmation, ReviewBroker, withoutConfirmation } from '../src/approvals/reviews';

// As server/lsp/workspace.py sends an edit for review (annotated hunks).
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

describe('edit reviews', () => {
  it('knows an edit that needs confirmation', () => {
    assert.equal(needsConfirmation(reviewed()), true);
    assert.equal(needsConfirmation({ edit: {} }), false);
    const plain = withoutConfirmation(reviewed());
    assert.equal(needsConfirmation(plain), false);
    assert.deepEqual(plain.edit.documentChanges, reviewed().edit.documentChanges);
  });

  it('passes an edit without annotations straight through', async () => {
    const seen: EditParams[] = [];
    const broker = new ReviewBroker(async () => undefined);
    const result = await broker.handle({ edit: {} }, async (p) => (seen.push(p), { applied: true }));
    assert.deepEqual(result, { applied: true });
    assert.equal(seen.length, 1);
    assert.equal(broker.waiting, false);
  });

  it('answers what the Refactor Preview answered', async () => {
    const broker = new ReviewBroker(async () => assert.fail('nothing to close'));
    const result = await broker.handle(reviewed(), async () => ({ applied: false }));
    assert.deepEqual(result, { applied: false });
  });

  it('applies everything when the chat says Apply all, closing the preview first', async () => {
    const preview = deferred<{ applied: boolean }>();
    const calls: EditParams[] = [];
    let closed = 0;
    const broker = new ReviewBroker(async () => {
      closed += 1;
      preview.resolve({ applied: false }); // VS Code answers the discarded preview with false
    });
    const handled = broker.handle(reviewed(), (p) => {
      calls.push(p);
      return calls.length === 1 ? preview.promise : Promise.resolve({ applied: true });
    });
    await Promise.resolve();
    assert.equal(broker.waiting, true);
    assert.equal(broker.applyAll(), true);
    assert.deepEqual(await handled, { applied: true });
    assert.equal(closed, 1);
    assert.equal(calls.length, 2);
    assert.equal(needsConfirmation(calls[1] as EditParams), false);
    assert.equal(broker.waiting, false);
    assert.equal(broker.applyAll(), false);
  });
});
