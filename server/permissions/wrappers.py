"""Programs that run other programs, each read by its own grammar.

The walk (walk.py) hands each simple command whose name is in NAMES to this
module. A wrapper (env, xargs, nice, timeout, nohup, stdbuf, setsid, command,
exec, bash/sh/dash -c, find -exec) is read with its complete option grammar and
yields the command it runs; an option it does not know fails the line. A
``bash -c`` script is walked like the line itself, and its rendering replaces
the script word in the line's rendering. git is read by git.py, interpreters by
interpreters.py. Everything here reaches the walk only through ``Walker``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agentls.permissions import git, options
from agentls.permissions.interpreters import AWKS, INLINE_CODE, inline_code
from agentls.permissions.words import Word, quote

__all__ = ["AWKS", "INLINE_CODE", "NAMES", "WRAPPERS", "Inner", "inline_code", "look_through"]


class Walker(Protocol):
    """What a wrapper grammar may read and change of the walk over one line."""

    root: Path | None
    changes_dir: bool
    writes: list[str]
    blind_writes: list[str]

    def fail(self, why: str) -> None: ...
    def ask(self, why: str) -> None: ...
    def inside(self, path: str) -> str | None: ...
    def add(self, words: Sequence[Word], *, known_tail: bool = True) -> dict[int, str] | None: ...
    def also(self, words: Sequence[Word]) -> None: ...
    def parse(self, command: str) -> str | None: ...
    def assignment(self, raw: str) -> None: ...
    def write(self, path: str) -> None: ...


@dataclass(slots=True)
class Inner:
    words: list[Word]  # the command it runs: always the last words of the wrapper's own
    known_tail: bool = True  # False: more unknown words follow (xargs)
    # Words of the wrapper's command (by index, its name at 0) that render as given
    # here: a bash -c script as the rendering of what it was read to.
    overrides: dict[int, str] | None = None


Grammar = Callable[[list[Word], Walker], Inner]


def look_through(name: str, words: list[Word], walk: Walker) -> Inner | None:
    """The command a wrapper runs; None when ``name`` is no wrapper. Fails on the unknown."""
    rest = words[1:]
    grammar = WRAPPERS.get(name)
    if grammar is not None:
        return grammar(rest, walk)
    if name == "find":
        return _find(rest, walk)
    if name == "git":
        git.read(words, walk)
    return None


def _options(
    name: str, rest: list[Word], walk: Walker, spec: options.Options
) -> tuple[list[tuple[str, str]], list[Word]] | None:
    """Read a wrapper's options up to the command it runs; None (and the line fails)
    on one it does not know. The options seen, and the words after them."""
    texts = [w.value if w.static else None for w in rest]
    parsed = options.read(name, texts, spec, walk, permute=False)
    if parsed is None:
        return None
    return parsed.options, rest[parsed.stop :]


def _simple(name: str, flags: set[str], valued: set[str], *, operands: int = 0) -> Grammar:
    """A wrapper with an option grammar and ``operands`` words before the command."""
    spec = options.table(sorted(flags), sorted(valued))

    def look(rest: list[Word], walk: Walker) -> Inner:
        parsed = _options(name, rest, walk, spec)
        if parsed is None:
            return Inner([])
        after = parsed[1]
        if len(after) < operands or any(not w.static for w in after[:operands]):
            walk.fail("a wrapper's operand is missing or computed at run time")
            return Inner([])
        return Inner(after[operands:])

    return look


def _env(rest: list[Word], walk: Walker) -> Inner:
    i = 0
    options = True  # until "--"; assignments may follow it
    while i < len(rest):
        word = rest[i]
        if not word.static:
            walk.fail(f"env is given a word computed at run time ({word.value})")
            return Inner([])
        text = word.value
        if options and text in _ENV_FLAGS:
            i += 1
        elif options and text in ("-u", "--unset", "-C", "--chdir"):
            if text in ("-C", "--chdir"):
                walk.changes_dir = True
            i += 2
        elif options and (
            text.startswith(("--unset=", "--chdir=")) or _GLUED_ENV_VALUE.fullmatch(text)
        ):
            walk.changes_dir = walk.changes_dir or "C" in text[:3] or "chdir" in text
            i += 1
        elif text == "--":
            i += 1
            options = False
        elif text.startswith("-") and options:
            walk.fail(f"env is given an option this analysis does not know ({text})")
            return Inner([])
        elif "=" in text and not text.startswith("="):
            walk.assignment(text)
            i += 1
        else:
            break
    return Inner(rest[i:])


_ENV_FLAGS = frozenset({"-i", "--ignore-environment", "-", "-0", "--null", "-v", "--debug"})
_GLUED_ENV_VALUE = re.compile(r"-[uC].+")
_NICE_OPTIONS = _simple("nice", {"--help", "--version"}, {"-n", "--adjustment"})
_OLD_NICE = re.compile(r"-\d+")


def _nice(rest: list[Word], walk: Walker) -> Inner:
    if rest and rest[0].static and _OLD_NICE.fullmatch(rest[0].value):
        return Inner(rest[1:])  # the old form: nice -10 CMD
    return _NICE_OPTIONS(rest, walk)


_COMMAND_OPTIONS = options.table(["-p", "-v", "-V"])


def _command_builtin(rest: list[Word], walk: Walker) -> Inner:
    parsed = _options("command", rest, walk, _COMMAND_OPTIONS)
    if parsed is None:
        return Inner([])
    seen, after = parsed
    if any(opt in ("-v", "-V") for opt, _ in seen):
        return Inner([])  # command -v NAME only looks the name up
    return Inner(after)


_XARGS_LONG_FLAGS = frozenset({
    "--null", "--no-run-if-empty", "--verbose", "--interactive", "--exit", "--open-tty",
})  # fmt: skip
_XARGS_LONG_VALUED = frozenset({
    "--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars",
    "--process-slot-var",
})  # fmt: skip
_XARGS_LONG_OPTIONAL = frozenset({"--replace", "--eof", "--max-lines"})  # value only after "="


def _xargs(rest: list[Word], walk: Walker) -> Inner:
    """xargs' complete option grammar; the command it runs gets the words it reads."""
    replace: str | None = None
    i = 0
    while i < len(rest):
        word = rest[i]
        if not word.static:
            walk.fail(f"xargs is given an option computed at run time ({word.value})")
            return Inner([])
        text = word.value
        if text == "--":
            i += 1
            break
        if not text.startswith("-") or text == "-":
            break
        if text.startswith("--"):
            key, eq, value = text.partition("=")
            if key in _XARGS_LONG_FLAGS and not eq:
                i += 1
            elif key in _XARGS_LONG_OPTIONAL:
                replace = (value or "{}") if key == "--replace" else replace
                i += 1
            elif key in _XARGS_LONG_VALUED:
                i += 1 if eq else 2
            else:
                walk.fail(f"xargs is given an option this analysis does not know ({text})")
                return Inner([])
            continue
        j, step = 1, 1
        while j < len(text):
            ch = text[j]
            if ch in "0rtpxo":
                j += 1
                continue
            if ch in "iel":  # an optional value, glued: -i{} -l5 -eEOF
                if ch == "i":
                    replace = text[j + 1 :] or "{}"
                break
            if ch in "adEILnPs":
                if ch == "I":
                    replace = text[j + 1 :] or (rest[i + 1].value if i + 1 < len(rest) else "")
                if j + 1 == len(text):
                    step = 2
                break
            walk.fail(f"xargs is given an option this analysis does not know ({text})")
            return Inner([])
        i += step
    after = rest[i:] or [Word("echo", True)]
    if replace:  # each word holding the replace string gets a line of input
        after = [Word(w.value, False) if replace in w.value else w for w in after]
    # Without a replace string xargs appends words read from its input.
    return Inner(after, known_tail=replace is not None)


# The shell options (after - or +) that change nothing about what a script runs or
# how it is read; -c is read apart. Not -k (assignments anywhere), -a, -p, -i, -s.
_SHELL_LETTERS = frozenset("euxvfnbhmrBCHPTEl")
_SHELL_LONG = frozenset({"--login", "--norc", "--noprofile", "--noediting", "--restricted"})
_SHELL_OPTION_NAMES = frozenset({
    "errexit", "nounset", "xtrace", "verbose", "pipefail", "noglob", "noclobber", "noexec",
    "braceexpand", "physical", "hashall", "monitor", "notify", "errtrace", "functrace",
})  # fmt: skip


def _shell(name: str) -> Grammar:
    """bash/sh/dash: only ``-c SCRIPT`` with known options is read; the script is walked,
    and its rendering is what the line runs in its place."""

    def look(rest: list[Word], walk: Walker) -> Inner:
        i = 0
        code = False
        while i < len(rest):
            word = rest[i]
            if not word.static:
                walk.fail(f"{name} is given a word computed at run time ({word.value})")
                return Inner([])
            text = word.value
            if text in ("--", "-"):
                i += 1
                break
            if text[:1] not in ("-", "+") or len(text) < 2:
                break
            if text.startswith("--"):
                if text not in _SHELL_LONG:
                    walk.fail(f"{name} is given an option this analysis does not know ({text})")
                    return Inner([])
                i += 1
                continue
            i += 1
            for ch in text[1:]:
                if ch == "c" and text[0] == "-":
                    code = True
                elif ch == "o":
                    option = rest[i] if i < len(rest) else None
                    if (
                        option is None
                        or not option.static
                        or (option.value not in _SHELL_OPTION_NAMES)
                    ):
                        walk.fail(f"{name} {text[0]}o is given an option it does not know")
                        return Inner([])
                    i += 1
                elif ch not in _SHELL_LETTERS:
                    walk.fail(f"{name} is given an option this analysis does not know ({text})")
                    return Inner([])
        script = rest[i:]
        if not code:
            why = "reads commands from a file" if script else "reads commands from its input"
            walk.fail(f"{name} {why}")
        elif not script:
            walk.fail(f"{name} -c has no command")
        elif not script[0].static:
            walk.fail(f"{name} -c runs a script computed at run time")
        else:
            rendering = walk.parse(script[0].value)
            if rendering is not None:
                return Inner([], overrides={i + 1: quote(rendering)})
        return Inner([])

    return look


def _find(rest: list[Word], walk: Walker) -> Inner:
    """find's primaries that run a command (each walked as one), delete what it finds,
    or write a file; the rest of its expression is data."""
    overrides: dict[int, str] = {}
    index = 0
    while index < len(rest):
        word = rest[index]
        text = word.value
        if not word.static:
            index += 1
            continue
        if text in ("-exec", "-execdir", "-ok", "-okdir"):
            if text.endswith("dir"):
                walk.changes_dir = True  # run in each file's folder
            end = index + 1
            while end < len(rest) and rest[end].value not in (";", "+"):
                end += 1
            if end > index + 1:
                segment = rest[index + 1 : end]
                found = walk.add([Word(w.value, False) if "{}" in w.value else w for w in segment])
                for position, rendering in (found or {}).items():
                    overrides[index + 2 + position] = rendering
            index = end
        elif text == "-delete":
            walk.blind_writes.append("find -delete removes the files it finds")
        elif text in ("-fprint", "-fprint0", "-fprintf", "-fls") and index + 1 < len(rest):
            target = rest[index + 1]
            if target.static:
                walk.write(target.value)
            else:
                walk.blind_writes.append(f"find {text} writes to a path computed at run time")
            index += 1
        index += 1
    return Inner([], overrides=overrides or None)


WRAPPERS: dict[str, Grammar] = {
    "env": _env,
    "nohup": _simple("nohup", {"--help", "--version"}, set()),
    "setsid": _simple("setsid", {"-c", "--ctty", "-f", "--fork", "-w", "--wait"}, set()),
    "timeout": _simple(
        "timeout",
        {"--preserve-status", "--foreground", "-v", "--verbose"},
        {"-s", "--signal", "-k", "--kill-after"},
        operands=1,
    ),
    "stdbuf": _simple("stdbuf", set(), {"-i", "--input", "-o", "--output", "-e", "--error"}),
    "nice": _nice,
    "xargs": _xargs,
    "command": _command_builtin,
    "builtin": _simple("builtin", set(), set()),
    "exec": _simple("exec", {"-c", "-l"}, {"-a"}),
    "busybox": lambda rest, walk: Inner(rest),
    "bash": _shell("bash"),
    "sh": _shell("sh"),
    "dash": _shell("dash"),
}
# Every name this module reads more closely than "a program with arguments".
NAMES = frozenset({*WRAPPERS, *INLINE_CODE, *AWKS, "find", "git"})
