import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { memoryItems } from '../src/commands/memoryItems';

describe('memory items', () => {
  it('shows each memory with where it came from', () => {
    const items = memoryItems({
      memories: [
        {
          id: 'm-1', content: 'Use pnpm.', scope: 'project', source: 'verified_observation', confidence: 'medium',
          createdAt: '2026-12-01T10:00:00+00:00', lastVerifiedAt: null, expiresAt: '2026-12-09T10:00:00+00:00',
          stale: true, line: 'm-1 ...',
        },
      ],
      changed: null,
      warnings: [],
    });
    assert.deepEqual(items, [{
      id: 'm-1', label: 'Use pnpm.', description: 'm-1',
      detail: 'project · verified_observation · confidence medium · since 2026-12-01 · expires 2026-12-09 · possibly stale',
    }]);
    assert.deepEqual(memoryItems(null), []);
  });

  it('shows a store that did not load, with what is wrong, before the memories', () => {
    const warning = '/state/memory/user.json does not load (memories.0.content: Field required); it is left as it is';
    const items = memoryItems({
      memories: [
        {
          id: 'm-2', content: 'Run make check.', scope: 'project', source: 'explicit_user_rule', confidence: 'high',
          createdAt: '2026-12-02T10:00:00+00:00', lastVerifiedAt: null, expiresAt: null, stale: false, line: 'm-2 ...',
        },
      ],
      changed: null,
      warnings: [warning],
    });
    assert.deepEqual(items.map((item) => [item.id, item.label, item.detail]), [
      [undefined, '$(warning) a memory file did not load', warning],
      ['m-2', 'Run make check.', 'project · explicit_user_rule · confidence high · since 2026-12-02'],
    ]);
    // a broken store alone still opens the picker: the person is told, not shown "no memories"
    assert.deepEqual(memoryItems({ memories: [], changed: null, warnings: [warning] }).map((item) => item.detail), [warning]);
  });
});
