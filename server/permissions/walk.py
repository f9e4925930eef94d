"""The walk over one parsed command line: what it gathers, and each simple command.

shell.analyse makes one Walk per line. The walk visits every simple command at
any depth (substitutions, subshells, loops, ``bash -c`` strings and, through
wrappers.py, the commands wrappers run), lists each one, and notes why the line
is unresolved, what a person must see, and the files it writes (redirections,
and the path arguments of the commands in WRITERS).
"""

from __future__ import annotations

import glob
import os
import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from agentls.permissions import grammar, wrappers
from agentls.permissions.words import Word, read_word, static_word

# Assignments that cannot change which program runs or what it loads.
SAFE_ENV = frozenset({
    "LANG", "LANGUAGE", "TZ", "TERM", "COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR",
    "CLICOLOR", "CI", "DEBUG", "VERBOSE", "TMPDIR", "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONWARNINGS",
    "RUST_BACKTRACE", "RUST_LOG", "NODE_ENV", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
    "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
})  # fmt: skip
SAFE_ENV_PREFIXES = ("LC_",)

# Builtins that define or run code the line does not show.
_UNRESOLVED_BUILTINS = {
    "eval": "eval runs text as a command", "source": "source runs a file",
    ".": ". runs a file", "trap": "trap runs text as a command later",
    "alias": "alias changes what a name runs", "unalias": "unalias changes what a name runs",
    "shopt": "shopt changes how bash reads the line", "enable": "enable loads builtins",
    "coproc": "coproc is not read", "fc": "fc runs history", "bind": "bind is not read",
    "complete": "complete runs functions", "let": "let evaluates arithmetic",
    "mapfile": "mapfile -C runs callbacks", "readarray": "readarray -C runs callbacks",
    "hash": "hash changes which program a name runs",
}  # fmt: skip
# Programs that run another program through options this analysis does not model.
_LAUNCHERS = frozenset({
    "sudo", "doas", "su", "pkexec", "runuser", "sg", "chroot", "unshare", "nsenter",
    "setpriv", "flock", "watch", "script", "strace", "ltrace", "valgrind", "gdb",
    "taskset", "ionice", "chrt", "prlimit", "systemd-run", "parallel", "fakeroot",
    "firejail", "bwrap", "proot", "torsocks", "proxychains", "proxychains4",
    "catchsegv", "time", "eatmydata", "unbuffer", "rlwrap", "chpst", "sem", "expect",
    "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "ash", "yash", "rc", "pwsh",
})  # fmt: skip
# Commands whose path arguments are files they write (for control-file protection).
WRITERS = frozenset({
    "cp", "mv", "tee", "ln", "install", "rsync", "touch", "mkdir", "rm", "rmdir",
    "chmod", "chown", "truncate", "patch", "dd", "sed", "shred", "unlink",
})  # fmt: skip
_CHDIR = frozenset({"cd", "pushd", "popd"})
_DECLARERS = frozenset({"export", "declare", "typeset", "local", "readonly"})
_DECLARE_OPTIONS = frozenset("xrpgilu")
# Every program name the walk looks at more closely than "a program with arguments".
_SPECIAL = frozenset(
    {*_CHDIR, *_DECLARERS, *_UNRESOLVED_BUILTINS, *_LAUNCHERS, *WRITERS, *wrappers.NAMES}
)
# What the walk does with each such name, resolved once: one lookup per command.
_BUILTIN, _LAUNCHER, _CD, _DECLARER, _LINKS, _WRAPPER, _LOOKS, _CODE, _WRITER = (
    1 << bit for bit in range(9)
)
_ROLES: dict[str, int] = {
    name: (name in _UNRESOLVED_BUILTINS and _BUILTIN)
    | (name in _LAUNCHERS and _LAUNCHER)
    | (name in _CHDIR and _CD)
    | (name in _DECLARERS and _DECLARER)
    | (name == "ln" and _LINKS)
    | (name in wrappers.WRAPPERS and _WRAPPER)
    | (name in ("find", "git") and _LOOKS)
    | (
        (name in wrappers.INLINE_CODE or name in wrappers.AWKS or name.startswith("python"))
        and _CODE
    )
    | (name in WRITERS and _WRITER)
    for name in _SPECIAL
}


def safe_env(name: str) -> bool:
    return name in SAFE_ENV or name.startswith(SAFE_ENV_PREFIXES)


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    words: tuple[str, ...]  # the program and its arguments as bash will see them
    # How many leading words are known; None: all of them, and no more follow.
    # After `known` words the command may have any words (a variable, a glob,
    # arguments xargs appends): rules treat that tail as "could be anything".
    known: int | None = None
    # A wrapper (env, timeout, xargs, bash -c ...) whose inner command is listed
    # too: allow rules look only at the inner one; deny rules at both.
    wrapper: bool = False

    @property
    def name(self) -> str:
        return self.words[0].rpartition("/")[2] if self.words else ""

    def __str__(self) -> str:
        return shlex.join(self.words)


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandAnalysis:
    commands: tuple[SimpleCommand, ...]
    unresolved: tuple[str, ...]  # why the line is not fully resolved (empty: it is)
    asks: tuple[str, ...] = ()  # resolved, but a person must look (e.g. writes outside)
    writes: tuple[str, ...] = ()  # workspace-relative paths the line writes
    blind_writes: tuple[str, ...] = ()  # write targets computed at run time

    @property
    def resolved(self) -> bool:
        return not self.unresolved


@dataclass(slots=True)
class Walk:
    root: Path | None
    commands: list[SimpleCommand] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    asks: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    blind_writes: list[str] = field(default_factory=list)
    changes_dir: bool = False  # cd/pushd/env -C: relative targets are no longer known
    makes_links: bool = False
    redirects: list[tuple[str, Word, bool]] = field(default_factory=list)
    resolved: dict[str, str | None] = field(default_factory=dict)

    def fail(self, why: str) -> None:
        if why not in self.unresolved:
            self.unresolved.append(why)

    def ask(self, why: str) -> None:
        if why not in self.asks:
            self.asks.append(why)

    def inside(self, path: str) -> str | None:
        """inside_workspace, once per path and line (lines often name a file twice)."""
        assert self.root is not None
        if path not in self.resolved:
            self.resolved[path] = inside_workspace(path, self.root)
        return self.resolved[path]

    def add(self, words: Sequence[Word], *, known_tail: bool = True) -> None:
        _add(words, self, known_tail=known_tail)

    def also(self, words: Sequence[Word]) -> None:
        """List another spelling of a command already listed (deny rules see both)."""
        self.commands.append(SimpleCommand(tuple(w.value for w in words), known_prefix(words)))

    def parse(self, command: str) -> None:
        parse_into(command, self)

    def assignment(self, raw: str) -> None:
        _assignment(raw, self)

    def analysis(self) -> CommandAnalysis:
        return CommandAnalysis(
            commands=tuple(self.commands),
            unresolved=tuple(self.unresolved),
            asks=tuple(self.asks),
            writes=tuple(dict.fromkeys(self.writes)),
            blind_writes=tuple(self.blind_writes),
        )


def parse_into(command: str, walk: Walk) -> None:
    if not command.strip():
        return
    if "\x00" in command:
        walk.fail("contains a NUL character")
        return
    try:
        script = grammar.parse(command)
    except grammar.Unsupported as exc:
        walk.fail(f"uses shell grammar this analysis does not read ({str(exc)[:60]})")
        return
    except RecursionError:
        walk.fail("nests too deeply to be read")
        return
    _visit(script, walk)


def _visit(script: grammar.Script, walk: Walk) -> None:
    if script.functions:
        walk.fail("defines a shell function")
    for command in script.commands:
        _command(command, walk)
    for word in script.loose_words:
        _read(word, walk)  # a for-loop list: only its expansions matter
    for redirect in script.redirects:
        _redirect(redirect, walk)


def _read(node: grammar.Word, walk: Walk, *, assignment_value: bool = False) -> Word:
    """Read a word; substitutions inside it are walked (for deny rules) and fail."""
    for inner in node.scripts:
        walk.fail("uses command or process substitution")
        _visit(inner, walk)
    word = read_word(node.raw, assignment_value=assignment_value)
    if word.unresolved:
        walk.fail(f"uses {word.unresolved}")
    return word


def _command(node: grammar.Simple | grammar.Literal, walk: Walk) -> None:
    if isinstance(node, tuple):  # plain words only: each means itself
        name = node[0].rpartition("/")[2]
        role = _ROLES.get(name, 0)
        if role or name.startswith("python"):
            _listed(name, [static_word(v) for v in node], node, None, role or _CODE, walk)
        else:
            walk.commands.append(SimpleCommand(node))  # an ordinary program
        return
    for assignment in node.assignments:
        for inner in assignment.scripts:
            walk.fail("uses command or process substitution")
            _visit(inner, walk)
        _assignment(assignment.raw, walk)
    words: list[Word] = []
    for node_word in node.words:  # _read, without its call for the common plain word
        if node_word.scripts:
            words.append(_read(node_word, walk))
            continue
        word = read_word(node_word.raw)
        if word.unresolved:
            walk.fail(f"uses {word.unresolved}")
        words.append(word)
    for redirect in node.redirects:
        _redirect(redirect, walk)
    if words:
        _add(words, walk)


def _assignment(raw: str, walk: Walk) -> None:
    name, _, value = raw.partition("=")
    name = name.rstrip("+")
    word = read_word(value, assignment_value=True)
    if word.unresolved:
        walk.fail(f"uses {word.unresolved} in an assignment to {name}")
    if not safe_env(name):
        walk.fail(f"sets {name}, which is not on the safe list of variables")


def _redirect(node: grammar.Redirect, walk: Walk) -> None:
    if node.target is None:
        return  # a file descriptor duplication such as 2>&1
    word = _read(node.target, walk)
    if node.op in ("<<", "<<-"):
        body = node.body or ""
        if not node.quoted and any(x in body for x in ("`", "$(", "${", "$[")):
            walk.fail("expands a here-document body bash evaluates")
        return
    if node.op == "<<<":
        return  # a here-string is data; its expansions were read above
    walk.redirects.append((node.op, word, node.op not in ("<", "<&")))


def _add(words: Sequence[Word], walk: Walk, *, known_tail: bool = True) -> None:
    """One simple command (and, through wrappers, the command it runs)."""
    statics = [w.static for w in words]
    if not statics[0]:
        walk.fail(f"the command name is computed at run time ({words[0].value})")
        return
    if False in statics:
        known: int | None = statics.index(False)
    else:
        known = None if known_tail else len(words)
    values = tuple([w.value for w in words])
    name = values[0].rpartition("/")[2]
    role = _ROLES.get(name, 0)
    if not role:
        if not name.startswith("python"):
            walk.commands.append(SimpleCommand(values, known))
            return  # an ordinary program: nothing more to look at
        role = _CODE
    _listed(name, words, values, known, role, walk, known_tail)


def _listed(
    name: str,
    words: Sequence[Word],
    values: tuple[str, ...],
    known: int | None,
    role: int,
    walk: Walk,
    known_tail: bool = True,
) -> None:
    """A command whose name has a role (``role``, from _ROLES): listed, then looked at."""
    # A wrapper's grammar always names the command it runs (perhaps none): allow rules
    # look only at that one.
    walk.commands.append(SimpleCommand(values, known, bool(role & _WRAPPER)))
    if role & _BUILTIN:
        walk.fail(_UNRESOLVED_BUILTINS[name])
        return
    if role & _LAUNCHER:
        walk.fail(f"{name} runs a program through options this analysis does not model")
        # For deny rules only: every later word might be the program it runs.
        for start in range(1, len(words)):
            if words[start].static and not values[start].startswith("-"):
                walk.also(words[start:])
        return
    if role & _CD:
        walk.changes_dir = True
    if role & _DECLARER:
        _declare(name, words[1:], walk)
    if role & _LINKS:
        walk.makes_links = True
    if role & (_WRAPPER | _LOOKS):
        inner = wrappers.look_through(name, list(words), walk)
        if inner is not None and inner.words:
            _add(inner.words, walk, known_tail=inner.known_tail)
    if role & _CODE:
        wrappers.inline_code(name, words, walk)
    if role & _WRITER:
        _argument_writes(name, words, walk, appended=not known_tail)


def _argument_writes(
    name: str, words: Sequence[Word], walk: Walk, *, appended: bool = False
) -> None:
    """Path arguments of commands that write files, for control-file protection.

    ``appended``: the command also gets arguments read at run time (xargs)."""
    if walk.root is None:
        return
    if name == "sed" and not any(w.value.startswith(("-i", "--in-place")) for w in words[1:]):
        return
    if appended:
        walk.blind_writes.append(f"{name} writes to paths it reads at run time")
    for word in words[1:]:
        text = word.value
        if name == "dd":
            if not text.startswith("of="):
                continue  # if=, bs=, count=: nothing written
            text = text[3:]
        elif text.startswith("-"):
            continue
        targets = [text] if word.static else _glob_now(text, word, walk)
        if targets is None:
            walk.blind_writes.append(f"{name} writes to a path computed at run time ({text})")
            continue
        for target in targets:
            relative = walk.inside(target)
            if relative is not None:
                walk.writes.append(relative)


def _glob_now(text: str, word: Word, walk: Walk) -> list[str] | None:
    """The paths a glob names now (bash expands it as the command starts; hidden files
    only when the glob spells the dot), or None when ``text`` is more than a glob
    Python reads the way bash does."""
    if not word.glob or walk.changes_dir or "[^" in text or "[[:" in text:
        return None
    if not _PLAIN_GLOB.fullmatch(text):
        return None
    return glob.glob(text, root_dir=walk.root) or [text]


_PLAIN_GLOB = re.compile(r"[^$`{}~\\'\"]+")


def known_prefix(words: Sequence[Word]) -> int | None:
    """How many leading words are static; None when all of them are."""
    return next((i for i, w in enumerate(words) if not w.static), None)


def _declare(name: str, args: Sequence[Word], walk: Walk) -> None:
    """export/declare/...: assignments go through the safe list; -f (functions) fails."""
    for word in args:
        text = word.value
        if not word.static:
            walk.fail(f"{name} is given a word computed at run time ({text})")
        elif text.startswith("-"):
            if len(text) < 2 or not _DECLARE_OPTIONS.issuperset(text[1:]):
                walk.fail(f"{name} is given an option this analysis does not know ({text})")
        elif "=" in text:
            variable = text.split("=", 1)[0].rstrip("+")
            if not safe_env(variable):
                walk.fail(f"sets {variable}, which is not on the safe list of variables")


def inside_workspace(path: str, root: Path) -> str | None:
    """The workspace-relative path (symlinks resolved), or None when it is outside."""
    base = _real_root(str(root))
    full = path if path.startswith("/") else os.path.join(base, path)
    try:
        resolved = os.path.realpath(full)
    except (OSError, ValueError):
        return None
    if resolved != base and not resolved.startswith(base + "/"):
        return None
    literal = os.path.normpath(full)  # ../ that climbs out and back in is still outside
    if literal != base and not literal.startswith((base + "/", str(root).rstrip("/") + "/")):
        return None
    return "." if resolved == base else resolved[len(base) + 1 :]


@lru_cache(maxsize=16)
def _real_root(root: str) -> str:
    return os.path.realpath(root)
