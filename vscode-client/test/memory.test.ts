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
});
