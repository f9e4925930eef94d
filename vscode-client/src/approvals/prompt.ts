// Reading the server's approval prompt (window/showMessageRequest) and deciding
// how VS Code shows it. Pure.
import type { ApprovalItem } from '../chat/model';
import { APPROVAL_ACTIONS, type ApprovalTitle } from '../protocol';
import type { ModalApprovals } from '../settings/serverSettings';

export interface MessageRequest {
  type: number;
  message: string;
  actions?: { title: string }[] | null;
}

/**
 * The server titles its approval actions exactly `Allow once`, `Always allow`, `Deny`,
 * leaving out `Always allow` when no rule could cover the call.
 */
export function approvalTitles(params: MessageRequest): ApprovalTitle[] | null {
  const titles = (params.actions ?? []).map((a) => a.title);
  const offered = APPROVAL_ACTIONS.filter((t) => titles.includes(t));
  const exact = offered.length === titles.length && offered.every((t, i) => titles[i] === t);
  return exact && offered.includes('Allow once') && offered.includes('Deny') ? offered : null;
}

export function isApprovalRequest(params: MessageRequest): boolean {
  return approvalTitles(params) !== null;
}

export interface ParsedApproval {
  tool: string;
  /** The command, or the call's description, as the server showed it. */
  shown: string;
  rule: string;
}

// "agentls wants to use {tool}:\n{shown}\n\nAlways allow adds the rule {rule}."
const MESSAGE = /^agentls wants to use ([^:\n]+):\n([\s\S]*?)(?:\n\nAlways allow adds the rule ([\s\S]*?)\.)?$/;

export function parseApprovalMessage(message: string): ParsedApproval {
  const match = MESSAGE.exec(message);
  if (!match) {
    return { tool: '', shown: message, rule: '' };
  }
  return { tool: match[1] ?? '', shown: match[2] ?? '', rule: match[3] ?? '' };
}

export function shouldBeModal(tool: string, setting: ModalApprovals): boolean {
  if (setting === 'all') {
    return true;
  }
  return setting === 'commands' && tool === 'run_command';
}

/**
 * The pending approval this prompt is about: the approval_asked event comes
 * just before the prompt, so it is the newest pending one not yet prompted.
 */
export function matchPending(pending: ApprovalItem[], parsed: ParsedApproval): ApprovalItem | undefined {
  const open = pending.filter((item) => item.via === null);
  const sameTool = open.filter((item) => parsed.tool === '' || item.tool === parsed.tool);
  return sameTool[sameTool.length - 1] ?? open[open.length - 1];
}

export interface DialogText {
  message: string;
  detail: string;
}

/** A modal's title line and body: the whole command, then what "Always allow" would add. */
export function dialogText(parsed: ParsedApproval, item?: ApprovalItem): DialogText {
  const tool = item?.tool || parsed.tool;
  const full = item?.detail || parsed.shown || item?.summary || '';
  const rule = item?.rule || parsed.rule;
  const message =
    tool === 'run_command'
      ? 'agentls wants to run a command'
      : `agentls wants to use ${tool || 'a tool'}${item?.summary ? `: ${item.summary}` : ''}`;
  const always = rule ? `\n\n"Always allow" adds the rule ${rule}.` : '';
  return { message, detail: `${full}${always}` };
}
