// `agentls.processes`'s answer as quick-pick items: the open sessions' background
// processes, running ones first, each with its state; a running one can be stopped. No vscode.
import type { ProcessEntry, ProcessesResult } from '../protocol';

export interface ProcessItem {
  sessionId: string;
  id: string;
  label: string;
  description: string;
  detail: string;
  running: boolean;
}

function state(p: ProcessEntry): string {
  if (p.state === 'running') return 'running';
  return `${p.state} (exit code ${p.exitCode})`;
}

export function processItems(result: ProcessesResult | null | undefined): ProcessItem[] {
  const entries = [...(result?.processes ?? [])];
  entries.sort((a, b) => Number(b.state === 'running') - Number(a.state === 'running'));
  return entries.map((p) => ({
    sessionId: p.sessionId,
    id: p.id,
    label: p.command,
    description: `${p.id} · ${state(p)}`,
    detail: `session ${p.sessionId} · since ${p.startedAt.slice(11, 19)} · ${p.sandbox === 'none' ? 'no sandbox' : `sandbox: ${p.sandbox}`}`,
    running: p.state === 'running',
  }));
}
