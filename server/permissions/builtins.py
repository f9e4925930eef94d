"""bash's builtins, each judged by a closed list of the forms it is known to take.

A builtin runs inside the shell, so what its arguments mean is bash's own
business: several evaluate a name they are given as arithmetic (``printf -v
'a[$(…)]'``, ``read``, ``test -v``, ``declare -i``), which runs any command
substitution inside it, and others set shell state that changes how later
words are read (``set -k``, ``shopt``). So a builtin passes only in a form
listed here, with plain names and values; any other form makes the line
unresolved. The list covers every builtin of bash 5.2 (``compgen -b``): one not
here is not taken as harmless either.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from agentls.permissions.words import Word


class Judge(Protocol):
    def fail(self, why: str) -> None: ...


# Builtins that run text as code, change how names or the line are read, or run
# callbacks: never resolved.
UNRESOLVED = {
    "eval": "eval runs text as a command", "source": "source runs a file",
    ".": ". runs a file", "trap": "trap runs text as a command later",
    "alias": "alias changes what a name runs", "unalias": "unalias changes what a name runs",
    "shopt": "shopt changes how bash reads the line", "enable": "enable loads builtins",
    "coproc": "coproc is not read", "fc": "fc runs history", "bind": "bind is not read",
    "complete": "complete runs functions", "compgen": "compgen runs functions and commands",
    "compopt": "compopt changes completion", "let": "let evaluates arithmetic",
    "mapfile": "mapfile -C runs callbacks", "readarray": "readarray -C runs callbacks",
    "hash": "hash changes which program a name runs", "history": "history writes files",
}  # fmt: skip
# Builtins whose arguments are data in every form (numbers, words, job specs).
DATA = frozenset({
    ":", "true", "false", "echo", "pwd", "times", "dirs", "help", "jobs", "type", "exit",
    "return", "shift", "break", "continue", "umask", "ulimit", "kill", "bg", "fg", "disown",
    "caller", "logout", "suspend",
})  # fmt: skip
# Builtins read below, by their own forms.
CHECKED = frozenset({
    "printf", "test", "[", "read", "getopts", "unset", "wait", "set", "declare", "typeset",
    "local", "export", "readonly",
})  # fmt: skip
# Handled by the walk itself: cd and the directory stack, and the wrappers.
ELSEWHERE = frozenset({"cd", "pushd", "popd", "command", "builtin", "exec"})
NAMES = frozenset({*UNRESOLVED, *DATA, *CHECKED, *ELSEWHERE})

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Shell variables a builtin may set: bash gives lowercase names no meaning of its own,
# and the few lowercase ones programs read from the environment are left out.
_PLAIN_VARIABLE = re.compile(r"[a-z_][a-z0-9_]*")
_PLAIN_VALUE = re.compile(r"[A-Za-z0-9_./,:@%+=-]*")
# set's options that change nothing about what the line runs or how it is read.
_SET_LETTERS = frozenset("euxvfnCBPhmbHT")
_SET_NAMES = frozenset({
    "errexit", "nounset", "xtrace", "verbose", "pipefail", "noglob", "noclobber", "noexec",
    "braceexpand", "physical", "hashall", "monitor", "notify", "histexpand", "errtrace",
    "functrace", "ignoreeof", "interactive-comments",
})  # fmt: skip
# declare & co.: export, read-only, print, global, lower and upper case. Not -i
# (arithmetic on assignment), -n (a name evaluated later), -a/-A (arrays), -f/-F.
_DECLARE_LETTERS = frozenset("xrpglu")


def settable(name: str, safe_env: bool) -> bool:
    """A variable a builtin may set: a safe environment name, or a plain lowercase one."""
    return safe_env or (_PLAIN_VARIABLE.fullmatch(name) is not None and "proxy" not in name)


def check(name: str, args: Sequence[Word], judge: Judge) -> None:
    """Fail the line unless builtin ``name`` is given one of its known forms."""
    why = UNRESOLVED.get(name)
    if why is not None:
        judge.fail(why)
        return
    if name in DATA or name in ELSEWHERE:
        return
    if name == "printf":
        _printf(args, judge)
    elif name in ("test", "["):
        _test(name, args, judge)
    elif name == "read":
        _read(args, judge)
    elif name == "getopts":
        if len(args) < 2 or not all(w.static for w in args[:2]):
            judge.fail("getopts is given a word computed at run time")
        else:
            _names("getopts", [args[1]], judge)
    elif name == "unset":
        _names("unset", [w for w in args if not (w.static and w.value in ("-f", "-v"))], judge)
    elif name == "wait":
        if any(w.static and w.value.startswith("-p") for w in args):
            judge.fail("wait -p sets a variable this analysis does not read")
    elif name == "set":
        _set(args, judge)


def plain_name(word: Word) -> bool:
    return word.static and _IDENTIFIER.fullmatch(word.value) is not None


def _names(name: str, words: Sequence[Word], judge: Judge) -> None:
    for word in words:
        if not word.static:
            judge.fail(f"{name} is given a name computed at run time ({word.value})")
        elif _PLAIN_VARIABLE.fullmatch(word.value) is None or "proxy" in word.value:
            judge.fail(f"{name} is given a name this analysis does not read ({word.value})")


def _printf(args: Sequence[Word], judge: Judge) -> None:
    first = args[0] if args else None
    if first is None or not first.static:
        if first is not None:
            judge.fail("printf is given a format computed at run time")
        return
    text = first.value
    if text == "-v":
        if len(args) < 2:
            judge.fail("printf -v has no name")
        else:
            _names("printf -v", [args[1]], judge)
    elif text.startswith("-v"):
        _names("printf -v", [Word(text[2:], True)], judge)
    elif text.startswith("-") and text not in ("--", "-"):
        judge.fail(f"printf is given an option this analysis does not know ({text})")


def _test(name: str, args: Sequence[Word], judge: Judge) -> None:
    for index, word in enumerate(args):
        if word.static and word.value in ("-v", "-R"):
            operand = args[index + 1] if index + 1 < len(args) else None
            if operand is None or not plain_name(operand):
                judge.fail(f"{name} {word.value} is given a name this analysis does not read")


_READ_FLAGS = frozenset("ers")
_READ_VALUED = frozenset("dinNptu")


def _read(args: Sequence[Word], judge: Judge) -> None:
    index = 0
    while index < len(args):
        word = args[index]
        if not word.static:
            judge.fail(f"read is given a word computed at run time ({word.value})")
            return
        text = word.value
        if text == "--":
            index += 1
            break
        if not text.startswith("-") or text == "-":
            break
        for position, letter in enumerate(text[1:], start=1):
            if letter in _READ_FLAGS:
                continue
            if letter == "a":
                rest = text[position + 1 :] or (
                    args[index + 1].value if index + 1 < len(args) else ""
                )
                if not text[position + 1 :]:
                    index += 1
                _names("read -a", [Word(rest, True)], judge)
                break
            if letter in _READ_VALUED:
                if position + 1 == len(text):
                    index += 1  # the value is the next word
                break
            judge.fail(f"read is given an option this analysis does not know ({text})")
            return
        index += 1
    _names("read", args[index:], judge)


def _set(args: Sequence[Word], judge: Judge) -> None:
    index = 0
    while index < len(args):
        word = args[index]
        if not word.static:
            judge.fail(f"set is given a word computed at run time ({word.value})")
            return
        text = word.value
        if text in ("--", "-"):
            return  # the positional parameters follow: data
        if not text.startswith(("-", "+")):
            return
        if text in ("-o", "+o"):
            option = args[index + 1] if index + 1 < len(args) else None
            if option is not None and (not option.static or option.value not in _SET_NAMES):
                judge.fail(f"set {text} is given an option this analysis does not know")
                return
            index += 2
            continue
        if not _SET_LETTERS.issuperset(text[1:]):
            judge.fail(f"set is given an option this analysis does not know ({text})")
            return
        index += 1


def declare(name: str, args: Sequence[Word], judge: Judge, safe_env: frozenset[str]) -> None:
    """export/declare/local/readonly/typeset: options from a closed list; names plain;
    a value set this way goes through the same safe list as an assignment."""
    for word in args:
        text = word.value
        if not word.static:
            judge.fail(f"{name} is given a word computed at run time ({text})")
        elif text.startswith(("-", "+")):
            if len(text) < 2 or not _DECLARE_LETTERS.issuperset(text[1:]):
                judge.fail(f"{name} is given an option this analysis does not know ({text})")
        else:
            variable, eq, value = text.partition("=")
            variable = variable.removesuffix("+") if eq else variable
            if _IDENTIFIER.fullmatch(variable) is None:
                judge.fail(f"{name} is given a name this analysis does not read ({variable})")
            elif eq and variable not in safe_env and not variable.startswith("LC_"):
                judge.fail(f"sets {variable}, which is not on the safe list of variables")
            elif not eq and not settable(variable, variable in safe_env):
                judge.fail(f"{name} is given a name this analysis does not read ({variable})")
            elif eq and _PLAIN_VALUE.fullmatch(value) is None:
                judge.fail(f"{name} gives {variable} a value this analysis does not read")
