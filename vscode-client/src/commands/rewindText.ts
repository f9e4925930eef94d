// What the rewind and fork pickers and their confirmation say. Pure.
import type { AskEntry, RewindResult } from '../protocol';

const PROMPT_WIDTH = 70;

/** An ask as a pick list shows it: its number (as `agentls show` prints it) and words. */
export function askLabel(entry: AskEntry): { label: string; description: string } {
  const words = entry.prompt.split('\n')[0]?.trim() || '(empty prompt)';
  const cut = words.length > PROMPT_WIDTH ? `${words.slice(0, PROMPT_WIDTH - 1)}…` : words;
  return { label: `Ask ${entry.ask}: ${cut}`, description: entry.outcome };
}

function asks(preview: RewindResult): string {
  const named = preview.asks.map((ask, index) => {
    const prompt = preview.prompts[index];
    return prompt ? `ask ${ask} “${prompt}”` : `ask ${ask}`;
  });
  if (named.length <= 1) {
    return named.join('');
  }
  return `${named.slice(0, -1).join(', ')} and ${named[named.length - 1]}`;
}

/**
 * What a rewind will undo, from its dry run: the asks taken back, the files put back,
 * those kept because they changed since, those refused. One line each.
 */
export function rewindConfirmation(preview: RewindResult): string {
  const lines: string[] = [];
  if (preview.conversation && preview.asks.length > 0) {
    const them = preview.asks.length === 1 ? 'it' : 'them';
    lines.push(`Takes back ${asks(preview)}: the model will no longer see ${them}.`);
  }
  if (preview.files) {
    const files: string[] = [];
    if (preview.restored.length > 0) {
      files.push(`restores ${preview.restored.join(', ')}`);
    }
    if (preview.removed.length > 0) {
      files.push(`removes ${preview.removed.join(', ')}`);
    }
    lines.push(
      files.length > 0
        ? `Puts the files back as they were before ask ${preview.ask}: ${files.join('; ')}.`
        : 'No file needs putting back.',
    );
    if (preview.kept.length > 0) {
      const asIs = preview.kept.length === 1 ? 'as it is' : 'as they are';
      lines.push(`Keeps ${preview.kept.join(', ')} ${asIs}: changed since, so not put back.`);
    }
    if (preview.refused.length > 0) {
      lines.push(`Leaves ${preview.refused.join(', ')}: a link now leads out of the workspace there.`);
    }
  }
  return lines.join('\n');
}
