// What the running run is doing now, in one line: waiting for the person
// (an approval, an edit's review, a question), running a tool, or waiting for
// the model. The chat view shows it above the prompt, the status bar in its
// text and tooltip, the view's badge counts what waits. Pure.
import type { ChatItem, ChatState, SessionView } from './model';

export type WaitingFor = 'approval' | 'review' | 'answer' | 'plan';

export interface Activity {
  kind: 'waiting' | 'tool' | 'thinking' | 'writing';
  text: string;
  /** Set when the run waits for the person. */
  waitingFor?: WaitingFor;
}

function inRun(view: SessionView): ChatItem[] {
  return view.items.filter((item) => 'runId' in item && item.runId === view.runningRunId);
}

function waitingItem(item: ChatItem): Activity | undefined {
  if (item.type === 'approval' && item.status === 'pending') {
    const where = item.via === 'modal' ? ' (answer in the dialog)' : '';
    const what = item.tool === 'run_command' ? `allow this command: ${withoutToolName(item.summary, item.tool)}` : `allow ${item.tool}: ${item.summary}`;
    return { kind: 'waiting', waitingFor: 'approval', text: `Waiting for you to ${what}${where}` };
  }
  if (item.type === 'proposed_plan' && item.status === 'pending') {
    return { kind: 'waiting', waitingFor: 'plan', text: 'Waiting for you: start on the proposed plan, or keep planning' };
  }
  if (item.type === 'question' && item.status === 'pending') {
    const waitingFor = item.question === 'review' ? 'review' : item.question === 'plan' ? 'plan' : 'approval';
    return { kind: 'waiting', waitingFor, text: `Waiting for your answer: ${item.summary}` };
  }
  if (item.type === 'edit' && item.status === 'proposed' && item.review) {
    return { kind: 'waiting', waitingFor: 'review', text: `Waiting for you to review the edit to ${item.path}: Apply or Reject` };
  }
  return undefined;
}

export function runActivity(view: SessionView): Activity | null {
  if (view.runningRunId === null) {
    return null;
  }
  const items = inRun(view);
  for (const item of items) {
    const waiting = waitingItem(item);
    if (waiting) {
      return waiting;
    }
  }
  const tool = [...items].reverse().find((item) => item.type === 'tool' && item.status === 'running');
  if (tool && tool.type === 'tool') {
    return { kind: 'tool', text: `Running ${tool.name}: ${withoutToolName(tool.summary, tool.name)}` };
  }
  const last = items[items.length - 1];
  if (last && last.type === 'answer') {
    return { kind: 'writing', text: 'Writing…' };
  }
  return { kind: 'thinking', text: 'Thinking…' };
}

/** How many things wait for the person, in every session (the chat view's badge). */
export function waitingCount(state: ChatState): number {
  return Object.values(state.views).reduce(
    (count, view) => count + view.items.filter((item) => waitingItem(item) !== undefined).length,
    0,
  );
}

/** The server's summaries start with the tool's name ("read_file a.py", "run_command: ls"); rows show it already. */
export function withoutToolName(summary: string, tool: string): string {
  return summary.startsWith(tool) ? summary.slice(tool.length).replace(/^:?\s+/, '') || summary : summary;
}
