"""Programs that run other programs or write files, each read by its own grammar.

The walk (walk.py) hands each simple command whose name is in SPECIAL_NAMES to
this module. A wrapper (env, xargs, nice, timeout, nohup, stdbuf, setsid,
command, exec, bash/sh/dash -c, find -exec) is read with its complete option
grammar and yields the command it runs; an option it does not know fails the
line. git's global options are stripped (``-c`` only for harmless keys);
interpreters given inline code fail. Everything here reaches the walk only
through ``Walker``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from agentls.permissions.words import Word


class Walker(Protocol):
    """What a wrapper grammar may read and change of the walk over one line."""

    root: Path | None
    changes_dir: bool
    writes: list[str]
    blind_writes: list[str]

    def fail(self, why: str) -> None: ...
    def ask(self, why: str) -> None: ...
    def inside(self, path: str) -> str | None: ...
    def add(self, words: Sequence[Word], *, known_tail: bool = True) -> None: ...
    def also(self, words: Sequence[Word]) -> None: ...
    def parse(self, command: str) -> None: ...
    def assignment(self, raw: str) -> None: ...


@dataclass(slots=True)
class Inner:
    words: list[Word]
    known_tail: bool = True  # False: more unknown words follow (xargs)


Grammar = Callable[[list[Word], Walker], Inner]

# Interpreters and the options that hand them code inline.
INLINE_CODE = {
    "python": {"-c"}, "python2": {"-c"}, "python3": {"-c"}, "pypy": {"-c"}, "pypy3": {"-c"},
    "perl": {"-e", "-E"}, "ruby": {"-e"}, "node": {"-e", "--eval", "-p", "--print"},
    "nodejs": {"-e", "--eval", "-p", "--print"}, "bun": {"-e", "--eval"},
    "php": {"-r"}, "lua": {"-e"}, "Rscript": {"-e"}, "osascript": {"-e"},
}  # fmt: skip
AWKS = frozenset({"awk", "gawk", "mawk", "nawk", "busybox-awk"})


def look_through(name: str, words: list[Word], walk: Walker) -> Inner | None:
    """The command a wrapper runs; None when ``name`` is no wrapper. Fails on the unknown."""
    rest = words[1:]
    grammar = WRAPPERS.get(name)
    if grammar is not None:
        return grammar(rest, walk)
    if name == "find":
        for segment in _find_exec(rest):
            walk.add(segment)
        return None
    if name == "git":
        _git(words, walk)
    return None


def _options(
    name: str, rest: list[Word], walk: Walker, flags: set[str], valued: set[str]
) -> tuple[list[tuple[str, str]], list[Word]] | None:
    """Parse options by an explicit grammar; None (and the line fails) on an unknown one.

    ``flags`` take no value; ``valued`` take one (``-n 5``, ``-n5``, ``--max-args=5``,
    ``--max-args 5``). Returns the options seen and the words after them.
    """
    seen: list[tuple[str, str]] = []
    i = 0
    while i < len(rest):
        word = rest[i]
        if not word.static:
            walk.fail(f"{name} is given an option computed at run time ({word.value})")
            return None
        text = word.value
        if text == "--":
            return seen, rest[i + 1 :]
        if not text.startswith("-") or text == "-":
            return seen, rest[i:]
        if text.startswith("--"):
            key, eq, value = text.partition("=")
            if key in flags and not eq:
                seen.append((key, ""))
                i += 1
                continue
            if key in valued:
                if eq:
                    seen.append((key, value))
                    i += 1
                    continue
                if i + 1 < len(rest) and rest[i + 1].static:
                    seen.append((key, rest[i + 1].value))
                    i += 2
                    continue
            walk.fail(f"{name} is given an option this analysis does not know ({text})")
            return None
        # short options, possibly bundled: -rn5, -xc
        j = 1
        while j < len(text):
            opt = "-" + text[j]
            if opt in flags:
                seen.append((opt, ""))
                j += 1
                continue
            if opt in valued:
                if j + 1 < len(text):
                    seen.append((opt, text[j + 1 :]))
                    i += 1
                elif i + 1 < len(rest) and rest[i + 1].static:
                    seen.append((opt, rest[i + 1].value))
                    i += 2
                else:
                    walk.fail(f"{name} option {opt} has no value it can read")
                    return None
                break
            walk.fail(f"{name} is given an option this analysis does not know ({text})")
            return None
        else:
            i += 1
    return seen, rest[i:]


def _simple(name: str, flags: set[str], valued: set[str], *, operands: int = 0) -> Grammar:
    """A wrapper with an option grammar and ``operands`` words before the command."""

    def look(rest: list[Word], walk: Walker) -> Inner:
        parsed = _options(name, rest, walk, flags, valued)
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


def _command_builtin(rest: list[Word], walk: Walker) -> Inner:
    parsed = _options("command", rest, walk, {"-p", "-v", "-V"}, set())
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


_SHELL_FLAGS = frozenset({
    "-c", "-e", "-u", "-x", "-v", "-f", "-n", "-a", "-b", "-h", "-m", "-B", "-C", "-H", "-P",
    "-T", "-E", "-l", "--login", "--norc", "--noprofile", "--posix", "--noediting",
    "--restricted", "-r",
})  # fmt: skip


def _shell(name: str) -> Grammar:
    """bash/sh/dash: only ``-c SCRIPT`` with known options is read; the script is parsed."""

    def look(rest: list[Word], walk: Walker) -> Inner:
        i = 0
        seen: set[str] = set()
        while i < len(rest):
            word = rest[i]
            if not word.static:
                walk.fail(f"{name} is given a word computed at run time ({word.value})")
                return Inner([])
            text = word.value
            if text == "--" or text == "-":
                i += 1
                break
            if text.startswith("+o") or text in ("-o", "+o"):
                i += 2 if text in ("-o", "+o") else 1
                continue
            if not text.startswith("-"):
                break
            if text.startswith("--"):
                if text not in _SHELL_FLAGS:
                    walk.fail(f"{name} is given an option this analysis does not know ({text})")
                    return Inner([])
                seen.add(text)
                i += 1
                continue
            for ch in text[1:]:
                if ch == "o":
                    i += 1  # the option name follows
                    break
                if "-" + ch not in _SHELL_FLAGS:
                    walk.fail(f"{name} is given an option this analysis does not know ({text})")
                    return Inner([])
                seen.add("-" + ch)
            i += 1
        script = rest[i:]
        if "-c" not in seen:
            why = "reads commands from a file" if script else "reads commands from its input"
            walk.fail(f"{name} {why}")
        elif not script:
            walk.fail(f"{name} -c has no command")
        elif not script[0].static:
            walk.fail(f"{name} -c runs a script computed at run time")
        else:
            walk.parse(script[0].value)
        return Inner([])

    return look


_GIT_GLOBAL_FLAGS = frozenset({
    "-p", "--paginate", "-P", "--no-pager", "--no-replace-objects", "--literal-pathspecs",
    "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks",
    "--bare",
})  # fmt: skip


def _git(words: list[Word], walk: Walker) -> None:
    """git's global options; -c only for harmless keys. The stripped command is listed too.

    git is never a wrapper: allow rules must name it, whatever follows its options."""
    rest = words[1:]
    i = 0
    stripped = False
    while i < len(rest):
        word = rest[i]
        if not word.static:
            break  # the subcommand is computed: git stays listed with an unknown tail
        text = word.value
        if text in ("-C", "-c") and i + 1 < len(rest):
            value = rest[i + 1]
            if not value.static:
                walk.fail(f"git {text} is given a value computed at run time")
                return
            if text == "-c" and not _safe_git_config(value.value):
                walk.fail(f"git -c {value.value.split('=')[0]} may run programs")
                return
            if text == "-C":
                walk.changes_dir = True
            i += 2
            stripped = True
        elif text in _GIT_GLOBAL_FLAGS:
            i += 1
            stripped = True
        elif text.startswith("-") and text not in ("--version", "--help", "-h", "-v"):
            walk.fail(f"git is given a global option this analysis does not know ({text})")
            return
        else:
            break
    if rest[i : i + 1] and rest[i].static and rest[i].value == "config":
        _git_config(rest[i + 1 :], walk)
    if stripped:
        # The same git run, as a rule naming its subcommand sees it. git itself stays a
        # command of its own (not a wrapper): allow rules must cover both spellings.
        walk.also([words[0], *rest[i:]])


def _safe_git_config(setting: str) -> bool:
    key = setting.split("=", 1)[0].lower()
    return key.startswith(("color.", "advice.")) or key in _SAFE_GIT_CONFIG


_SAFE_GIT_CONFIG = frozenset({
    "core.quotepath", "user.name", "user.email", "init.defaultbranch", "log.showsignature",
    "diff.noprefix", "column.ui", "i18n.logoutputencoding",
})  # fmt: skip


def _git_config(rest: list[Word], walk: Walker) -> None:
    """`git config` that sets anything writes git's own configuration: a control file."""
    if any(not w.static for w in rest):
        walk.blind_writes.append("git config with words computed at run time")
        return
    options = {w.value.split("=")[0] for w in rest if w.value.startswith("-")}
    operands = [w.value for w in rest if not w.value.startswith("-")]
    if options & _GIT_CONFIG_READS or operands[:1] in (["get"], ["list"]):
        return
    if options & _GIT_CONFIG_WRITES or operands[:1] in _GIT_CONFIG_VERBS or len(operands) >= 2:
        if options & {"--global", "--system"}:
            walk.ask("writes git's global configuration")
        else:
            walk.writes.append(".git/config")


_GIT_CONFIG_READS = frozenset({
    "--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch", "--get-color",
    "--get-colorbool",
})  # fmt: skip
_GIT_CONFIG_WRITES = frozenset({
    "--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section",
    "-e", "--edit", "--file", "-f", "--blob",
})  # fmt: skip
_GIT_CONFIG_VERBS = [["set"], ["unset"], ["edit"], ["rename-section"], ["remove-section"]]


def inline_code(name: str, words: Sequence[Word], walk: Walker) -> None:
    """Interpreters given code on the command line, and awk programs that run commands."""
    options = INLINE_CODE.get(name)
    if options is None and name.startswith("python"):
        options = {"-c"}  # python3.11 and friends
    if options is not None:
        letters = {o[1] for o in options if len(o) == 2}
        for word in words[1:]:
            text = word.value
            if not text.startswith("-") or text in ("-m", "-"):
                return  # the script or module: its own arguments follow
            bundle = _SHORT_BUNDLE.match(text)
            if text in options or (bundle is not None and letters & set(bundle.group(1))):
                walk.fail(f"{name} runs code given inline ({text[:12]})")
                return
        return
    if name in AWKS:
        if any(w.value.startswith("-f") or w.value == "--file" for w in words[1:]):
            walk.fail(f"{name} runs a program file")
        elif any(not w.static or _AWK_RUNS.search(w.value) for w in words[1:]):
            walk.fail(f"{name} program runs commands or writes files")


_SHORT_BUNDLE = re.compile(r"-([A-Za-z]+)")
_AWK_RUNS = re.compile(r"system|\||getline|>")


def _find_exec(rest: list[Word]) -> list[list[Word]]:
    found = []
    index = 0
    while index < len(rest):
        if rest[index].value in ("-exec", "-execdir", "-ok", "-okdir"):
            end = index + 1
            while end < len(rest) and rest[end].value not in (";", "+"):
                end += 1
            if end > index + 1:
                segment = rest[index + 1 : end]
                found.append([Word(w.value, False) if "{}" in w.value else w for w in segment])
            index = end
        index += 1
    return found


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
