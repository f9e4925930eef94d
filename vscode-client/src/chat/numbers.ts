// The numbers at the end of a run, written as the CLI and the other editors
// write them: " · 5 turns · 1,000 in / 132 out tokens · $0.0050". No price
// when there is none (unknown, or a scripted model's nominal one): the server
// sends null then, in events and in the session list alike. Pure.
import type { Usage } from '../protocol';

/** A cost as every part of the client writes it; '' when there is no price. */
export function costText(costUsd: number | null | undefined): string {
  if (costUsd === null || costUsd === undefined) {
    return '';
  }
  return costUsd >= 1 ? `$${costUsd.toFixed(2)}` : `$${costUsd.toFixed(4)}`;
}

export function runEndNumbers(turns: number | undefined, usage: Usage): string {
  const parts = [];
  if (turns !== undefined) {
    parts.push(`${turns} turn${turns === 1 ? '' : 's'}`);
  }
  parts.push(`${usage.inputTokens.toLocaleString('en-US')} in / ${usage.outputTokens.toLocaleString('en-US')} out tokens`);
  if (usage.costUsd !== null) {
    parts.push(costText(usage.costUsd));
  }
  return parts.map((part) => ` · ${part}`).join('');
}
