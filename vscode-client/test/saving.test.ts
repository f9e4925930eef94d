import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyThenSave, editedUris, type SaveHost } from '../src/approvals/saving';

function edit(...uris: string[]) {
  return {
    edit: {
      documentChanges: [
        { kind: 'create', uri: uris[0] },
        ...uris.map((uri) => ({ textDocument: { uri, version: null }, edits: [] })),
      ],
    },
  };
}

class FakeHost implements SaveHost {
  saved: string[] = [];
  constructor(private readonly dirty: Set<string>) {}
  isDirty(uri: string): boolean {
    return this.dirty.has(uri);
  }
  async save(uri: string): Promise<boolean> {
    this.saved.push(uri);
    return true;
  }
}

describe('saving accepted edits', () => {
  it('knows the documents an edit changes', () => {
    assert.deepEqual(editedUris(edit('file:///w/a.py', 'file:///w/b.py')), ['file:///w/a.py', 'file:///w/b.py']);
    assert.deepEqual(editedUris({ edit: { changes: { 'file:///w/c.py': [] } } }), ['file:///w/c.py']);
  });

  it('saves what was clean before the edit, then answers', async () => {
    const host = new FakeHost(new Set(['file:///w/mine.py']));
    let savedWhenApplied: string[] | undefined;
    const result = await applyThenSave(edit('file:///w/a.py', 'file:///w/mine.py'), async () => {
      savedWhenApplied = [...host.saved];
      return { applied: true };
    }, host);
    assert.deepEqual(result, { applied: true });
    assert.deepEqual(savedWhenApplied, []); // nothing saved before the edit is in
    assert.deepEqual(host.saved, ['file:///w/a.py']); // the person's unsaved document is left alone
  });

  it('saves nothing when the edit was not applied', async () => {
    const host = new FakeHost(new Set());
    const result = await applyThenSave(edit('file:///w/a.py'), async () => ({ applied: false }), host);
    assert.deepEqual(result, { applied: false });
    assert.deepEqual(host.saved, []);
  });
});
