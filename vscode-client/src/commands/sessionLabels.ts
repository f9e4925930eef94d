// How a stored session reads in a picker. Pure.
import { costText } from '../chat/numbers';
import type { SessionInfo, UndoResult } from '../protocol';

export interface SessionLabel {
  label: string;
  description: string;
  detail: string;
}

export function sessionLabel(info: SessionInfo, now: Date = new Date()): SessionLabel {
  const prompt = info.firstPrompt.split('\n')[0]?.trim() || '(no prompt)';
  const parts = [whenText(info.createdAt, now)];
  if (info.running) {
    parts.push('running');
  } else if (info.outcome) {
    parts.push(info.outcome);
  }
  parts.push(`${info.runs} run${info.runs === 1 ? '' : 's'}`);
  if (info.forkedFrom) {
    parts.push(info.forkedAtAsk ? `fork before ask ${info.forkedAtAsk}` : 'fork');
  }
  const cost = costText(info.costUsd);
  if (cost) {
    parts.push(cost);
  }
  return {
    label: prompt.length > 70 ? `${prompt.slice(0, 69)}…` : prompt,
    description: parts.join(' · '),
    detail: info.sessionId,
  };
}

function undoneWhat(result: UndoResult): string {
  if (!result.ask) {
    return `turn ${result.turn}`;
  }
  const turns = result.turns.length > 0 ? result.turns : [result.turn];
  const span = turns.length > 1 ? `turns ${turns[0]}–${turns[turns.length - 1]}` : `turn ${turns[0]}`;
  return `the last ask (${span})`;
}

/** One line for the chat after agentls.undo (the server's words, docs/protocol.md). */
export function undoSummary(result: UndoResult): string {
  const what = undoneWhat(result);
  if (result.conflicts.length > 0) {
    return `Undo of ${what} stopped: ${result.conflicts.join(', ')} changed since, so nothing was undone.`;
  }
  const parts = [];
  if (result.restored.length > 0) {
    parts.push(`restored ${result.restored.join(', ')}`);
  }
  if (result.removed.length > 0) {
    parts.push(`removed ${result.removed.join(', ')}`);
  }
  if (result.refused.length > 0) {
    parts.push(`refused ${result.refused.join(', ')}: a link now leads out of the workspace there, so they are left as they are`);
    return `Undid only part of ${what}: ${parts.join('; ')}.`;
  }
  return `Undid ${what}: ${parts.join('; ') || 'nothing had changed'}.`;
}

export function whenText(iso: string, now: Date): string {
  const then = new Date(iso);
  if (Number.isNaN(then.getTime())) {
    return iso;
  }
  const minutes = Math.round((now.getTime() - then.getTime()) / 60_000);
  if (minutes < 1) {
    return 'just now';
  }
  if (minutes < 60) {
    return `${minutes} min ago`;
  }
  if (minutes < 24 * 60) {
    return `${Math.round(minutes / 60)} h ago`;
  }
  return then.toISOString().slice(0, 10);
}
