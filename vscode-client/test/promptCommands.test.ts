import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commandPrompt, commandSuggestions, completed, matching, promptCommandItems } from '../src/commands/promptCommandItems';
import type { CommandsInfo, PromptCommandInfo } from '../src/protocol';

function command(fields: Partial<PromptCommandInfo> & { name: string }): PromptCommandInfo {
  return {
    description: '', argumentHint: null, inputHint: '(optional) more words', path: `.agentls/commands/${fields.name}.md`,
    scope: 'workspace', trusted: false, allowedTools: [], rules: [], notes: [], shadows: [], ...fields,
  };
}

const LISTED: CommandsInfo = {
  commands: [
    command({ name: 'git:commit', description: 'Write a commit message', inputHint: 'arguments', path: '.claude/commands/git/commit.md' }),
    command({ name: 'release-notes', description: 'Release notes', allowedTools: ['Bash(git log:*)'] }),
    command({
      name: 'review', description: 'Review a file', argumentHint: 'FILE', inputHint: 'FILE', scope: 'user', trusted: true,
      path: '/home/me/.config/agentls/commands/review.md', allowedTools: ['Bash(git diff:*)'], rules: ['run_command(git diff *)'],
      shadows: ['.github/prompts/review.prompt.md'],
    }),
  ],
  problems: ['.agentls/commands/bad.md: not UTF-8 text; not offered'],
};

describe('prompt commands in the palette', () => {
  it('lists each command with what it takes, where it is from and what it allows', () => {
    assert.deepEqual(promptCommandItems(LISTED), [
      { name: 'git:commit', label: '/git:commit', description: 'Write a commit message', detail: '.claude/commands/git/commit.md', placeholder: 'arguments' },
      {
        name: 'release-notes', label: '/release-notes', description: 'Release notes',
        detail: '.agentls/commands/release-notes.md · allowed-tools not approved (agentls trust)', placeholder: '(optional) more words',
      },
      {
        name: 'review', label: '/review', description: 'FILE — Review a file',
        detail: '/home/me/.config/agentls/commands/review.md · allows run_command(git diff *) · hides .github/prompts/review.prompt.md',
        placeholder: 'FILE',
      },
    ]);
    assert.deepEqual(promptCommandItems(null), []);
  });

  it('asks with the name and the words typed after it', () => {
    assert.equal(commandPrompt('review', '  src/app.py speed '), '/review src/app.py speed');
    assert.equal(commandPrompt('release-notes', ''), '/release-notes');
  });
});

describe('prompt commands in the chat view', () => {
  const suggestions = commandSuggestions(LISTED.commands);

  it('suggests the commands the first word may name, and Tab completes the first', () => {
    assert.deepEqual(matching('/re', suggestions).map((c) => c.name), ['release-notes', 'review']);
    assert.deepEqual(matching('/', suggestions).map((c) => c.name), ['git:commit', 'release-notes', 'review']);
    assert.deepEqual(matching('/review src', suggestions), []); // past the name: nothing to suggest
    assert.deepEqual(matching('why /re', suggestions), []);
    assert.equal(completed('/rev', suggestions), '/review ');
    assert.equal(completed('/nothing', suggestions), null);
    assert.equal(completed('plain words', suggestions), null);
    assert.deepEqual(suggestions[2], { name: 'review', hint: 'FILE', description: 'Review a file' });
  });
});
