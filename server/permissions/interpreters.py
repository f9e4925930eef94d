"""Interpreters and awk, each read by the closed grammar of its options.

An interpreter given a program file runs that file: a known form (the file is
the workspace's code, like ``make`` or ``pytest``). Given code inline (``-c``,
``-e``), code from its input, or an option this module does not list (one may
hide code, load a module, open a debugger port), the line is unresolved: the
gate cannot see what it runs. Options are read up to the program file, as the
interpreters read them; a word bash computes before that file may be an
option, so it makes the line unresolved too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from agentls.permissions.words import Word


class Judge(Protocol):
    def fail(self, why: str) -> None: ...


@dataclass(frozen=True, slots=True)
class Grammar:
    flags: frozenset[str]  # options without a value (short ones may be bundled)
    valued: frozenset[str]  # options with a value, glued or the next word
    module: frozenset[str] = frozenset()  # runs a named module: what follows is its own
    program: frozenset[str] = frozenset()  # names the program file: what follows is its own


def _set(*names: str) -> frozenset[str]:
    return frozenset(names)


_PYTHON = Grammar(
    flags=_set("-b", "-B", "-d", "-E", "-h", "-I", "-O", "-P", "-q", "-s", "-S", "-u", "-v",
               "-V", "-x", "-R", "--version", "--help", "--help-env", "--help-xoptions",
               "--help-all"),
    valued=_set("-W", "-X", "--check-hash-based-pycs"),
    module=_set("-m"),
)  # fmt: skip
_GRAMMARS = {
    "perl": Grammar(flags=_set("-w", "-W", "-X", "-T", "-t", "-s", "-v", "-V", "-U", "-S"),
                    valued=_set("-I")),
    "ruby": Grammar(flags=_set("-w", "-W", "-v", "-c", "-h", "--version", "--help"),
                    valued=_set("-I")),
    "node": Grammar(flags=_set("-v", "--version", "-h", "--help", "--no-warnings",
                               "--trace-warnings", "--enable-source-maps", "--test",
                               "--no-deprecation", "--throw-deprecation", "--trace-deprecation",
                               "--pending-deprecation", "--preserve-symlinks"),
                    valued=_set("--max-old-space-size", "--stack-size", "--unhandled-rejections",
                                "-C", "--conditions", "--input-type", "--test-reporter",
                                "--test-name-pattern")),
    "php": Grammar(flags=_set("-l", "-n", "-v", "-h", "--version", "--help"), valued=_set(),
                   program=_set("-f")),
}  # fmt: skip
_GRAMMARS["nodejs"] = _GRAMMARS["node"]
# Interpreters without a grammar here: only ``NAME FILE ARGS…`` is known.
_BARE = frozenset({"lua", "Rscript", "osascript", "bun"})
# The names of interpreters this module reads (python3.11 and friends too).
INLINE_CODE = frozenset({"python", "python2", "python3", "pypy", "pypy3", *_GRAMMARS, *_BARE})
AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
PYTHON_NAME = re.compile(r"(?:python|pypy)[0-9.]*")


def grammar_of(name: str) -> Grammar | None:
    if PYTHON_NAME.fullmatch(name):
        return _PYTHON
    if name in _BARE:
        return Grammar(frozenset(), frozenset())
    return _GRAMMARS.get(name)


def inline_code(name: str, words: Sequence[Word], judge: Judge) -> None:
    """Fail the line unless the interpreter is given a program file or module in a
    form its grammar lists, or awk a program that runs nothing."""
    if name in AWKS:
        _awk(name, words, judge)
        return
    grammar = grammar_of(name)
    if grammar is None:
        return  # python-something that is not an interpreter name (python-config…)
    rest = words[1:]
    index = 0
    while index < len(rest):
        word = rest[index]
        if not word.static:
            judge.fail(f"{name} is given a word computed at run time where it reads options")
            return
        text = word.value
        if text == "--":
            index += 1
            break
        if not text.startswith("-"):
            return  # the program file: its own arguments follow
        if text == "-":
            judge.fail(f"{name} reads its program from its input")
            return
        key, eq, _ = text.partition("=")
        if key in grammar.flags and not eq:
            index += 1
            continue
        if key in grammar.valued or key in grammar.module or key in grammar.program:
            if key in grammar.module or key in grammar.program:
                return  # a module or file named: what follows is its own
            index += 1 if eq else 2
            continue
        short = _short(text, grammar)
        if short is None:
            judge.fail(f"{name} is given an option this analysis does not know ({text[:20]})")
            return
        index += short
        if short == 0:
            return  # a module named in a bundle (-um pkg)
    if index >= len(rest):
        judge.fail(f"{name} reads its program from its input")


def _short(text: str, grammar: Grammar) -> int | None:
    """A bundle of short options (-uBm, -Wignore): how many words it takes (0 when a
    module or program file follows), or None when a letter is not in the grammar."""
    if text.startswith("--") or len(text) < 2:
        return None
    for position, letter in enumerate(text[1:], start=1):
        option = "-" + letter
        if option in grammar.flags:
            continue
        if option in grammar.valued:
            return 1 if position + 1 < len(text) else 2
        if option in grammar.module or option in grammar.program:
            return 0
        return None
    return 1


# awk's options, and the parts of its language that run a program, read or write a
# file or load code: system(), pipes, getline, redirection, gawk's @-directives.
_AWK_FLAGS = _set("--posix", "--traditional", "-P", "-c", "-S", "--sandbox", "-b",
                  "--characters-as-bytes", "-N", "--use-lc-numeric")  # fmt: skip
_AWK_VALUED = _set("-F", "-v", "--field-separator", "--assign")
_AWK_RUNS = re.compile(r"system|\||getline|>|@")


def _awk(name: str, words: Sequence[Word], judge: Judge) -> None:
    rest = words[1:]
    index = 0
    while index < len(rest):
        word = rest[index]
        if not word.static:
            judge.fail(f"{name} is given a word computed at run time where it reads options")
            return
        text = word.value
        if text == "--":
            index += 1
            break
        if not text.startswith("-") or text == "-":
            break
        key, eq, _ = text.partition("=")
        if key in _AWK_FLAGS and not eq:
            index += 1
        elif key in _AWK_VALUED:
            index += 1 if eq else 2
        elif text[:2] in ("-F", "-v") and len(text) > 2:
            index += 1  # -F: -vx=1
        else:
            judge.fail(f"{name} is given an option this analysis does not know ({text[:20]})")
            return
    if index >= len(rest):
        judge.fail(f"{name} has no program")
        return
    program = rest[index]
    if not program.static or _AWK_RUNS.search(program.value):
        judge.fail(f"{name} program runs commands or touches files")
