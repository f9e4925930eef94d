"""Reading a shell command the way bash will run it, with a real parser (bashlex).

`analyse` returns every simple command the line would run (through `&&`,
`||`, `;`, pipes, subshells, command substitutions, `bash -c` strings and
wrappers such as `env`, `timeout` or `xargs`), and the concerns that make a
line always need a person: substitutions, eval and sudo, computed command
names, function definitions, redirections to files outside the workspace, and
anything the parser cannot read.
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import bashlex  # type: ignore[import-untyped]

ALWAYS_ASK = {"eval", "sudo", "su", "doas", "pkexec", "source", ".", "exec"}
SHELLS = {"sh", "bash", "dash", "zsh", "ksh"}
HARMLESS_DEVICES = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero"}
# Variables that change which program runs or what it loads.
RISKY_ASSIGNMENTS = ("LD_", "PATH=", "PYTHONPATH=", "PYTHONSTARTUP=", "BASH_ENV=", "ENV=",
                     "PROMPT_COMMAND=", "GIT_SSH", "NODE_OPTIONS=")  # fmt: skip


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    words: tuple[str, ...]  # the program and its arguments, assignments left out
    # A wrapper (env, timeout, sudo, bash -c ...) whose inner command is listed
    # too: allowing the inner command allows it; denying either denies.
    wrapper: bool = False

    @property
    def name(self) -> str:
        return os.path.basename(self.words[0]) if self.words else ""

    def __str__(self) -> str:
        return shlex.join(self.words)


@dataclass(frozen=True, slots=True)
class CommandAnalysis:
    commands: tuple[SimpleCommand, ...]
    concerns: tuple[str, ...]  # non-empty: a person must approve, whatever the rules say


@dataclass
class _Walk:
    root: Path | None
    source: str = ""  # the text being read, for the words' own spelling
    commands: list[SimpleCommand] = field(default_factory=list)
    concerns: list[str] = field(default_factory=list)

    def concern(self, text: str) -> None:
        if text not in self.concerns:
            self.concerns.append(text)


@lru_cache(maxsize=512)
def analyse(command: str, root: Path | None = None) -> CommandAnalysis:
    walk = _Walk(root)
    _parse_into(command, walk)
    return CommandAnalysis(tuple(walk.commands), tuple(walk.concerns))


def _parse_into(command: str, walk: _Walk) -> None:
    if not command.strip():
        return
    try:
        trees = bashlex.parse(command)
    except Exception as exc:  # bashlex raises several kinds; all mean "cannot be sure"
        walk.concern(f"cannot be analysed ({type(exc).__name__}: {str(exc)[:80]})")
        return
    outer, walk.source = walk.source, command
    try:
        for tree in trees:
            _visit(tree, walk)
    finally:
        walk.source = outer


def _visit(node: Any, walk: _Walk) -> None:
    kind = node.kind
    if kind == "command":
        _command(node, walk)
    elif kind == "function":
        walk.concern("defines a shell function")
    elif kind in ("commandsubstitution", "processsubstitution"):
        walk.concern("uses command substitution")
        _visit(node.command, walk)
    else:
        for child in _children(node):
            _visit(child, walk)


def _children(node: Any) -> list[Any]:
    children = list(getattr(node, "parts", None) or [])
    children += list(getattr(node, "list", None) or [])
    return children


def _command(node: Any, walk: _Walk) -> None:
    words: list[str] = []
    for part in node.parts:
        if part.kind == "assignment":
            _nested(part, walk)
            if not words and part.word.startswith(RISKY_ASSIGNMENTS):
                walk.concern(f"sets {part.word.split('=', 1)[0]}")
        elif part.kind == "word":
            if not words and _is_computed(part):
                walk.concern("the command name is computed at run time")
            _nested(part, walk)
            words.append(_unquoted(part, walk.source))
        elif part.kind == "redirect":
            _redirect(part, walk)
    if words:
        _add(tuple(words), walk)


def _unquoted(word: Any, source: str) -> str:
    """The word as bash sees it. bashlex leaves some quotes in (r''m), so a word
    without expansions is unquoted again from its source text."""
    if getattr(word, "parts", None) or not any(q in word.word for q in "'\"\\"):
        return str(word.word)
    start, end = word.pos
    try:
        tokens = shlex.split(source[start:end])
    except ValueError:
        return str(word.word)
    return tokens[0] if len(tokens) == 1 else str(word.word)


def _nested(word: Any, walk: _Walk) -> None:
    for child in getattr(word, "parts", None) or []:
        if child.kind in ("commandsubstitution", "processsubstitution"):
            _visit(child, walk)


def _is_computed(word: Any) -> bool:
    return any(
        child.kind in ("parameter", "commandsubstitution", "processsubstitution")
        for child in getattr(word, "parts", None) or []
    )


def _redirect(node: Any, walk: _Walk) -> None:
    if node.type in ("<<", "<<-", "<<<"):
        return  # here-documents stay inside the command line
    target = node.output
    if isinstance(target, int) or target is None or getattr(target, "kind", "") != "word":
        return  # a file descriptor duplication such as 2>&1
    _nested(target, walk)
    if any(child.kind in ("parameter", "commandsubstitution") for child in target.parts or []):
        walk.concern(f"redirects to a computed path ({target.word})")
        return
    if not _inside_workspace(target.word, walk.root):
        walk.concern(f"redirects to {target.word}, outside the workspace")


def _inside_workspace(path: str, root: Path | None) -> bool:
    if path in HARMLESS_DEVICES:
        return True
    if root is None:
        return not os.path.isabs(os.path.expanduser(path))
    full = Path(os.path.expanduser(path))
    resolved = (full if full.is_absolute() else root / full).resolve()
    return resolved.is_relative_to(root.resolve())


def _add(words: tuple[str, ...], walk: _Walk) -> None:
    name = os.path.basename(words[0])
    entry = len(walk.commands)
    walk.commands.append(SimpleCommand(words))
    inner: tuple[str, ...] = ()
    if name in ALWAYS_ASK:
        walk.concern(f"uses {name}")
        if name in ("sudo", "doas", "exec"):
            inner = _skip_options(words[1:])
    elif name in SHELLS:
        if _shell_script(words, walk):
            walk.commands[entry] = SimpleCommand(words, wrapper=True)
        return
    else:
        inner = _wrapped(name, words[1:])
    if inner:
        walk.commands[entry] = SimpleCommand(words, wrapper=True)
        _add(inner, walk)
    if name == "find":
        for inner in _find_exec(words[1:]):
            _add(inner, walk)


def _shell_script(words: tuple[str, ...], walk: _Walk) -> bool:
    """True when the shell runs a `-c` string, which is then read like the line itself."""
    if "-c" in words[1:]:
        at = words.index("-c")
        if at + 1 < len(words):
            _parse_into(words[at + 1], walk)
            return True
    if len(words) > 1:
        walk.concern(f"runs a script with {os.path.basename(words[0])}")
    return False


def _skip_options(
    words: tuple[str, ...], with_value: frozenset[str] = frozenset()
) -> tuple[str, ...]:
    index = 0
    while index < len(words) and words[index].startswith("-"):
        index += 2 if words[index] in with_value else 1
    return words[index:]


_WRAPPER_VALUES = {
    "nice": frozenset({"-n"}),
    "timeout": frozenset({"-s", "-k", "--signal", "--kill-after"}),
    "stdbuf": frozenset({"-i", "-o", "-e"}),
    "xargs": frozenset({"-n", "-I", "-P", "-L", "-s", "-d", "-E", "-a", "-i"}),
}


def _wrapped(name: str, rest: tuple[str, ...]) -> tuple[str, ...]:
    """The command a wrapper runs, so the rules see it too."""
    if name in ("nohup", "command", "builtin", "time"):
        return _skip_options(rest)
    if name == "env":
        index = 0
        while index < len(rest) and (rest[index].startswith("-") or "=" in rest[index]):
            index += 1
        return rest[index:]
    if name in _WRAPPER_VALUES:
        inner = _skip_options(rest, _WRAPPER_VALUES[name])
        if name == "timeout" and inner:
            inner = inner[1:]  # the duration
        return inner
    return ()


def _find_exec(rest: tuple[str, ...]) -> list[tuple[str, ...]]:
    found = []
    index = 0
    while index < len(rest):
        if rest[index] in ("-exec", "-execdir", "-ok", "-okdir"):
            end = index + 1
            while end < len(rest) and rest[end] not in (";", "+"):
                end += 1
            if end > index + 1:
                found.append(rest[index + 1 : end])
            index = end
        index += 1
    return found
