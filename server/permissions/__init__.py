"""The gate: modes, rules, the bash subset it parses, the policy and the approvers.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

`modes.py`: modes and the tools each shows; rules (`tool(pattern)`: allow names
exactly, deny and ask match any spelling;
`protectedPaths`;

`rules.py` parses them once per settings load, `RuleSet.from_settings`, and deny and ask
rules read their program once per line);

`grammar.py` (our own parser for the subset of bash the gate understands; anything else
is unsupported; it reads lists, commands and redirections and records each line's
**layout**, the operators and reserved words between the commands), built on
`word_reader.py` (`WordReader`: where each word ends, past quotes, escapes and
expansions; blanks and comments) and `heredocs.py` (`HeredocReader`: here-document
bodies read at their newline, joining continued lines of unquoted bodies as bash does;
`heredoc_delimiter`, a delimiter by bash's quote removal)

`script.py` (the parsed shape it builds; a command of plain words is kept as its text
alone)

`bash_tokens.py` (its token patterns and reserved words, and the one-match readers: a
command of words, plain redirections and `$(…)` around one plain command is read with
the operator after it in one regex match, anything else takes the general path);

`words.py` (each word static, dynamic or unresolved, read from its source text, and its
rendering);

`render.py` (the line spelled back from its layout and its words: what runs when rules
approve it; here-documents get agentls's own delimiter);

`walk.py` (the walk over a parsed line: each program name's role resolved by one lookup;
every simple command at any depth, why it is unresolved, the files it writes, the
programs no list knows, each command's rendering);

`builtins.py` (every bash builtin by its known forms)

`programs.py` (known programs by the closed grammars of their options: the writers, the
data programs, sed)

`interpreters.py` (python, perl, ruby, node, php, awk)

`git.py` (global options, what each subcommand does)

`wrappers.py` (the option grammars of env, xargs, nice, timeout, nohup, stdbuf, setsid,
command/exec/builtin, bash/sh/dash -c (walked, and rendered in place), find -exec;
reached through `Walker`), all read by `options.py` (the one table-driven option reader);

`shell.py` (`analyse`: redirect targets judged, analyses with a workspace read afresh,
text-only ones cached); `policy.py` (deny beats ask beats allow, then the mode; an
unresolved line, or one with programs no list knows, is never auto-approved while a deny
rule for `run_command` exists; control files and agentls's own files need a person; each
decision on a resolved line carries its rendering, `runs`; narrowest "always allow"
rules); `approvers.py` (auto-yes, deny-all; each says whether its answers are a person's).
"""
