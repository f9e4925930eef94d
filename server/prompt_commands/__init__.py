"""Prompt commands: markdown files that a prompt names as `/name args`, expanded into the
text the model is given, found in the workspace and in the person's own folder.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

`files.py`: `find_commands` (the folders, first found first: `.agentls/commands`,
`.claude/commands`, `.github/prompts/*.prompt.md`, then the person's
`$XDG_CONFIG_HOME/agentls/commands`; a subfolder is a namespace, `git/commit.md` is
`/git:commit`); each file read once (UTF-8, at most `MAX_BYTES`, its frontmatter whole)
or skipped with a note; `sources`.

`catalog.py`: `PromptCommand` (name, description, argument hint, path, sha256, trust,
`allowed-tools` as written and as rules, notes, the files it hides), `CommandCatalog`
(`prompt`: a prompt as the model is given it, an `AskedPrompt`, its command expanded,
or `UnknownPromptCommand` listing those there), `CommandUse`, `plain` (a prompt that
names no command, known without reading a file), `RESERVED` (the built-in command names
no file takes).

`expansion.py`: `invocation` (`/name args`; `//` escapes), `expand` (`$ARGUMENTS`,
`$1`…`$9`; a prompt file's `${input:name}` and `${workspaceFolder}`; a missing argument
left empty).

`allowed_tools.py`: `allow_rules`, a file's `allowed-tools` (Claude Code's spelling or
agentls's) as allow rules, never wider than the entry; the rest left out with a note.

`frontmatter.py`: `split_frontmatter`, the flat YAML subset command files use, with no
YAML library; anything else is `BrokenFrontmatter`.
"""
