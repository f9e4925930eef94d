// The status bar item's text, tooltip and click action, from the chat state. Pure.
import { type ChatState, pendingApprovals, sessionTotals, type Totals } from '../chat/model';

export interface StatusText {
  text: string;
  tooltip: string;
  /** What a click does. */
  action: 'cancel' | 'focus' | 'restart';
  warning: boolean;
}

export function formatTokens(count: number): string {
  if (count < 1000) {
    return String(count);
  }
  if (count < 10_000) {
    return `${(count / 1000).toFixed(1)}k`;
  }
  if (count < 1_000_000) {
    return `${Math.round(count / 1000)}k`;
  }
  return `${(count / 1_000_000).toFixed(1)}M`;
}

export function formatCost(totals: Totals): string {
  if (totals.costUnknown) {
    return 'cost unknown';
  }
  const cost = totals.costUsd;
  return cost >= 1 ? `$${cost.toFixed(2)}` : `$${cost.toFixed(4)}`;
}

/** "1.2k tokens · $0.0123", or '' before anything was used. */
export function usageLine(totals: Totals): string {
  const tokens = totals.inputTokens + totals.outputTokens;
  if (tokens === 0 && totals.costUsd === 0 && !totals.costUnknown) {
    return '';
  }
  return `${formatTokens(tokens)} tokens · ${formatCost(totals)}`;
}

export function statusText(state: ChatState): StatusText {
  if (state.server.state === 'failed') {
    return {
      text: '$(error) agentls',
      tooltip: `agentls: the server is not running. ${state.server.message}\nClick to restart it.`.trim(),
      action: 'restart',
      warning: true,
    };
  }
  if (state.server.state === 'starting') {
    return { text: '$(loading~spin) agentls', tooltip: 'agentls: starting the server…', action: 'focus', warning: false };
  }
  if (state.server.state === 'stopped') {
    return { text: '$(circle-slash) agentls', tooltip: 'agentls: the server is stopped. Click to restart it.', action: 'restart', warning: false };
  }
  const view = state.views[state.current];
  const totals = view ? sessionTotals(view) : undefined;
  const usage = totals ? usageLine(totals) : '';
  const tokensDetail = totals
    ? `\n${totals.inputTokens.toLocaleString('en-US')} in / ${totals.outputTokens.toLocaleString('en-US')} out tokens · ${formatCost(totals)}`
    : '';
  const session = view?.sessionId ? `Session ${view.sessionId}` : 'No session yet';
  if (view?.runningRunId) {
    const waiting = pendingApprovals(view).length > 0;
    const icon = waiting ? '$(bell-dot)' : '$(loading~spin)';
    const what = waiting ? 'approval needed' : 'running';
    return {
      text: `${icon} agentls: ${what}${usage ? ` · ${usage}` : ''}`,
      tooltip: `${session}: ${view.activity || 'running'}${tokensDetail}\nClick to cancel the run.`,
      action: 'cancel',
      warning: waiting,
    };
  }
  return {
    text: `$(hubot) agentls${usage ? ` · ${usage}` : ''}`,
    tooltip: `${session}${tokensDetail}\nClick to open the chat.`,
    action: 'focus',
    warning: false,
  };
}
