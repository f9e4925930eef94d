// `agentls.memory`'s answer as quick-pick items: first each store that did not load (a
// broken memory file, with what is wrong, so it is not silently missing), then one per
// memory, its line as the label's detail, so a person can read where each came from and
// pick one to forget. No vscode.
import type { MemoryEntry, MemoryResult } from '../protocol';

export interface MemoryItem {
  /** the memory's id; absent for a store that did not load (nothing to forget) */
  id?: string;
  label: string;
  description: string;
  detail: string;
}

function describe(m: MemoryEntry): string {
  const facts = [m.scope, m.source, `confidence ${m.confidence}`, `since ${m.createdAt.slice(0, 10)}`];
  if (m.expiresAt) facts.push(`expires ${m.expiresAt.slice(0, 10)}`);
  if (m.stale) facts.push('possibly stale');
  return facts.join(' · ');
}

function broken(warning: string): MemoryItem {
  return { label: '$(warning) a memory file did not load', description: 'its memories are not used', detail: warning };
}

export function memoryItems(result: MemoryResult | null | undefined): MemoryItem[] {
  return [
    ...(result?.warnings ?? []).map(broken),
    ...(result?.memories ?? []).map((m) => ({ id: m.id, label: m.content, description: m.id, detail: describe(m) })),
  ];
}
