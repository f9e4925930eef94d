"""Reading a shell command the way bash will run it, failing closed.

grammar.py gives the structure (lists, pipelines, subshells, groups, loops,
redirections); words.py reads each word from its source text. `analyse`
returns every simple command the line would run, at any depth (inside
substitutions, `bash -c` strings, and through the wrappers it knows), and says
whether the line is **fully resolved**: every command it runs is known before
bash starts. The grammar it understands is small and explicit; anything
outside it is *unresolved*, with the reason:

- command, process or arithmetic substitution anywhere (in words, assignments,
  redirections, here-strings, unquoted here-document bodies, `${…}`
  operators); a parameter expansion with operators; extended globs;
- a command name that is not a literal (variables, globs, brace expansion);
- eval, source/., trap, alias, shopt, enable, function definitions, shells
  reading a script file or stdin (`bash -s`, `… | bash`),
  programs that run other programs with options it does not model (sudo,
  chroot, strace, …), interpreters given inline code (`python -c`, `perl -e`,
  `node -e`, awk programs that call `system`);
- environment assignments (before a command, standalone, through `env` or
  `export`) other than the short list SAFE_ENV;
- a wrapper option it does not know (see wrappers.py);
- a `/dev/tcp` or `/dev/udp` redirection (bash opens a connection);
- anything the parser cannot read (`[[ ]]`, `case`, `time`, `(( ))`).

Separately it reports what a person must see even for a resolved line:
redirections to targets outside the workspace or computed at run time, and
the workspace paths the line writes (redirections, and the path arguments of
commands that write files) so the policy can protect control files.

walk.py holds the walk over the parsed line, wrappers.py the grammars of the
programs it looks through; this module judges the redirections it collected.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from agentls.permissions import words
from agentls.permissions.walk import (
    SAFE_ENV,
    CommandAnalysis,
    SimpleCommand,
    Walk,
    inside_workspace,
    parse_into,
    path_folders,
    safe_env,
)
from agentls.permissions.words import Word
from agentls.workspace.control import is_own_path

__all__ = [
    "SAFE_ENV",
    "CommandAnalysis",
    "SimpleCommand",
    "analyse",
    "clear_caches",
    "inside_workspace",
    "safe_env",
]

HARMLESS_DEVICES = frozenset({
    "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/zero",
    "/dev/fd/0", "/dev/fd/1", "/dev/fd/2",
})  # fmt: skip


def analyse(command: str, root: Path | None = None) -> CommandAnalysis:
    """The line's analysis; with a workspace ``root``, read afresh at every call: what
    a line writes depends on the files there now (symlinks, globs)."""
    if root is None:
        return _analyse_text(command)
    return _analyse(command, root)


@lru_cache(maxsize=1024)
def _analyse_text(command: str) -> CommandAnalysis:
    return _analyse(command, None)  # no workspace: a function of the text alone


def _analyse(command: str, root: Path | None) -> CommandAnalysis:
    walk = Walk(root, shadows=None if root is None else path_folders(root))
    script = parse_into(command, walk)
    for kind, word, write in walk.redirects:
        _judge_target(kind, word, write, walk)
    return walk.analysis(script)


def clear_caches() -> None:
    """Forget every analysis and word read so far (for measuring the analysis itself)."""
    _analyse_text.cache_clear()
    words.clear_cache()


def _judge_target(kind: str, word: Word, write: bool, walk: Walk) -> None:
    verb = "writes to" if write else "reads from"
    if not word.static:
        if write:
            walk.blind_writes.append(f"writes to a path computed at run time ({word.value})")
        else:
            walk.ask(f"reads from a path computed at run time ({word.value})")
        return
    path = word.value
    if path in HARMLESS_DEVICES:
        return
    if path.startswith("/dev/") and os.path.normpath(path).startswith(("/dev/tcp/", "/dev/udp/")):
        walk.fail(f"opens a network connection through bash ({path})")
        return
    if walk.root is None:
        if os.path.isabs(path):
            if write and is_own_path(os.path.realpath(path)):
                walk.blind_writes.append(f"writes agentls's own file {path}")
            else:
                walk.ask(f"{verb} {path}, outside the workspace")
        return
    if not os.path.isabs(path) and walk.changes_dir:
        (walk.blind_writes if write else walk.asks).append(
            f"{verb} {path} after changing directory"
        )
        return
    relative = walk.inside(path)
    if relative is None:
        if write and is_own_path(os.path.realpath(os.path.join(walk.root, path))):
            walk.blind_writes.append(f"writes agentls's own file {path}")
        else:
            walk.ask(f"{verb} {path}, outside the workspace")
    elif write:
        if walk.makes_links:
            walk.blind_writes.append(f"writes to {path} in a line that makes links")
        elif walk.linked(relative):
            walk.blind_writes.append(f"writes to {path}, a file with other names (hard links)")
        walk.writes.append(relative)
