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

import dataclasses
import re
from collections.abc import Sequence
from typing import Protocol

from agentls.permissions import options
from agentls.permissions.options import Options
from agentls.permissions.words import Word


class Judge(Protocol):
    def fail(self, why: str) -> None: ...


def _set(*names: str) -> frozenset[str]:
    return frozenset(names)


# The options that hand an interpreter its code inline.
_INLINE = frozenset({"-c", "-e", "-E", "--eval", "-p", "--print", "-r"})


def _table(
    flags: frozenset[str], valued: frozenset[str], ends: frozenset[str] = frozenset()
) -> Options:
    spelled = options.table(sorted(flags), sorted(valued))
    inline = _INLINE - flags - valued - ends
    return dataclasses.replace(spelled, ends=ends, runs=inline, runs_why="runs code given inline")


_PYTHON = _table(
    flags=_set("-b", "-B", "-d", "-E", "-h", "-I", "-O", "-P", "-q", "-s", "-S", "-u", "-v",
               "-V", "-x", "-R", "--version", "--help", "--help-env", "--help-xoptions",
               "--help-all"),
    valued=_set("-W", "-X", "--check-hash-based-pycs"),
    ends=_set("-m"),
)  # fmt: skip
_TABLES = {
    "perl": _table(flags=_set("-w", "-W", "-X", "-T", "-t", "-s", "-v", "-V", "-U", "-S"),
                   valued=_set("-I")),
    "ruby": _table(flags=_set("-w", "-W", "-v", "-c", "-h", "--version", "--help"),
                   valued=_set("-I")),
    "node": _table(flags=_set("-v", "--version", "-h", "--help", "--no-warnings",
                              "--trace-warnings", "--enable-source-maps", "--test",
                              "--no-deprecation", "--throw-deprecation", "--trace-deprecation",
                              "--pending-deprecation", "--preserve-symlinks"),
                   valued=_set("--max-old-space-size", "--stack-size", "--unhandled-rejections",
                               "-C", "--conditions", "--input-type", "--test-reporter",
                               "--test-name-pattern")),
    "php": _table(flags=_set("-l", "-n", "-v", "-h", "--version", "--help"), valued=_set(),
                  ends=_set("-f")),
}  # fmt: skip
_TABLES["nodejs"] = _TABLES["node"]
# Interpreters without a grammar here: only ``NAME FILE ARGS…`` is known.
_BARE = frozenset({"lua", "Rscript", "osascript", "bun"})
# The names of interpreters this module reads (python3.11 and friends too).
INLINE_CODE = frozenset({"python", "python2", "python3", "pypy", "pypy3", *_TABLES, *_BARE})
AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})
PYTHON_NAME = re.compile(r"(?:python|pypy)[0-9.]*")


def table_of(name: str) -> Options | None:
    if PYTHON_NAME.fullmatch(name):
        return _PYTHON
    if name in _BARE:
        return Options()
    return _TABLES.get(name)


def inline_code(name: str, words: Sequence[Word], judge: Judge) -> None:
    """Fail the line unless the interpreter is given a program file or module in a
    form its table lists, or awk a program that runs nothing."""
    if name in AWKS:
        _awk(name, words, judge)
        return
    table = table_of(name)
    if table is None:
        return  # python-something that is not an interpreter name (python-config…)
    texts = [w.value if w.static else None for w in words[1:]]
    parsed = options.read(name, texts, table, judge, permute=False)
    if parsed is None:
        return
    if parsed.options and parsed.options[-1][0] in table.ends:
        return  # a module or file named: what follows is its own
    if not parsed.operands or parsed.operands[0] == "-":
        judge.fail(f"{name} reads its program from its input")


# awk's options, and the parts of its language that run a program, read or write a
# file or load code: system(), pipes, getline, redirection, gawk's @-directives.
_AWK = options.table(
    flags=sorted(_set("--posix", "--traditional", "-P", "-c", "-S", "--sandbox", "-b",
                      "--characters-as-bytes", "-N", "--use-lc-numeric")),
    valued=sorted(_set("-F", "-v", "--field-separator", "--assign")),
)  # fmt: skip
_AWK_RUNS = re.compile(r"system|\||getline|>|@")


def _awk(name: str, words: Sequence[Word], judge: Judge) -> None:
    texts = [w.value if w.static else None for w in words[1:]]
    parsed = options.read(name, texts, _AWK, judge, permute=False)
    if parsed is None:
        return
    if not parsed.operands:
        judge.fail(f"{name} has no program")
        return
    program = words[1 + parsed.stop]
    if not program.static or _AWK_RUNS.search(program.value):
        judge.fail(f"{name} program runs commands or touches files")
