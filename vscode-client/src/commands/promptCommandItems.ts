// `agentls.commands`' answer as what the person picks from: the palette's quick pick
// (one item per prompt command, with what it takes and where it comes from) and the chat
// view's suggestions for a prompt that starts with `/`. No vscode.
import type { CommandsInfo, PromptCommandInfo } from '../protocol';

export interface PromptCommandItem {
  name: string;
  label: string;
  description: string;
  detail: string;
  /** What the argument box shows before the person types. */
  placeholder: string;
}

function detail(c: PromptCommandInfo): string {
  const facts = [c.path];
  if (c.rules.length > 0) facts.push(`allows ${c.rules.join(', ')}`);
  else if (c.allowedTools.length > 0 && !c.trusted) facts.push('allowed-tools not approved (agentls trust)');
  if (c.shadows.length > 0) facts.push(`hides ${c.shadows.join(', ')}`);
  return facts.join(' · ');
}

export function promptCommandItems(result: CommandsInfo | null | undefined): PromptCommandItem[] {
  return (result?.commands ?? []).map((c) => ({
    name: c.name,
    label: `/${c.name}`,
    description: c.argumentHint ? `${c.argumentHint} — ${c.description}` : c.description,
    detail: detail(c),
    placeholder: c.inputHint,
  }));
}

/** The prompt an item and the words typed after it make. */
export function commandPrompt(name: string, words: string): string {
  return `/${name} ${words.trim()}`.trimEnd();
}

export interface CommandSuggestion {
  name: string;
  hint: string;
  description: string;
}

export function commandSuggestions(commands: readonly PromptCommandInfo[]): CommandSuggestion[] {
  return commands.map((c) => ({ name: c.name, hint: c.inputHint, description: c.description }));
}

/** The commands a prompt being typed may be naming: its text is `/` and the start of a
 * name, nothing after it yet. */
export function matching(text: string, commands: readonly CommandSuggestion[]): CommandSuggestion[] {
  const start = /^\/(\S*)$/.exec(text)?.[1];
  if (start === undefined) return [];
  return commands.filter((c) => c.name.startsWith(start));
}

/** Tab in the chat's prompt: the first matching name, completed and followed by a space. */
export function completed(text: string, commands: readonly CommandSuggestion[]): string | null {
  const first = matching(text, commands)[0];
  return first ? `/${first.name} ` : null;
}
