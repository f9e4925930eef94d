// The status bar item's text, tooltip and click action, from the chat state. Pure.
import { runActivity } from '../chat/activity';
import { type ChatState, sessionTotals, type Totals } from '../chat/model';
import { costText } from '../chat/numbers';

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

/** The session's cost as the session list and the run ends write it; '' when it has no price. */
export function formatCost(totals: Totals): string {
  return totals.costUnknown ? '' : costText(totals.costUsd);
}

/** "1.2k tokens · $0.0123" ("1.2k tokens" without a price), or '' before anything was used. */
export function usageLine(totals: Totals): string {
  const tokens = totals.inputTokens + totals.outputTokens;
  if (tokens === 0 && totals.costUsd === 0) {
    return '';
  }
  const cost = formatCost(totals);
  return cost ? `${formatTokens(tokens)} tokens · ${cost}` : `${formatTokens(tokens)} tokens`;
}

function costDetail(totals: Totals): string {
  return formatCost(totals) || 'no price for this model';
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
    ? `\n${totals.inputTokens.toLocaleString('en-US')} in / ${totals.outputTokens.toLocaleString('en-US')} out tokens · ${costDetail(totals)}`
    : '';
  const session = view?.sessionId ? `Session ${view.sessionId}` : 'No session yet';
  if (view?.runningRunId) {
    const activity = runActivity(view);
    const waiting = activity?.waitingFor !== undefined;
    const icon = waiting ? '$(bell-dot)' : '$(loading~spin)';
    const what = activity?.waitingFor ? `${activity.waitingFor} needed` : 'running';
    return {
      text: `${icon} agentls: ${what}${usage ? ` · ${usage}` : ''}`,
      tooltip: `${session}: ${activity?.text ?? 'running'}${tokensDetail}\nClick to cancel the run.`,
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
