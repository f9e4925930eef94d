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
- a wrapper option it does not know (see _WRAPPERS);
- a `/dev/tcp` or `/dev/udp` redirection (bash opens a connection);
- anything the parser cannot read (`[[ ]]`, `case`, `time`, `(( ))`).

Separately it reports what a person must see even for a resolved line:
redirections to targets outside the workspace or computed at run time, and
the workspace paths the line writes (redirections, and the path arguments of
commands that write files) so the policy can protect control files.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from agentls.permissions import grammar
from agentls.permissions.words import Word, read_word

# Assignments that cannot change which program runs or what it loads.
SAFE_ENV = frozenset({
    "LANG", "LANGUAGE", "TZ", "TERM", "COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR",
    "CLICOLOR", "CI", "DEBUG", "VERBOSE", "TMPDIR", "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONWARNINGS",
    "RUST_BACKTRACE", "RUST_LOG", "NODE_ENV", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
    "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
})  # fmt: skip
SAFE_ENV_PREFIXES = ("LC_",)
HARMLESS_DEVICES = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty",
                    "/dev/zero", "/dev/fd/0", "/dev/fd/1", "/dev/fd/2"}  # fmt: skip

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
# Programs that run another program through options this module does not model.
_LAUNCHERS = {
    "sudo", "doas", "su", "pkexec", "runuser", "sg", "chroot", "unshare", "nsenter",
    "setpriv", "flock", "watch", "script", "strace", "ltrace", "valgrind", "gdb",
    "taskset", "ionice", "chrt", "prlimit", "systemd-run", "parallel", "fakeroot",
    "firejail", "bwrap", "proot", "torsocks", "proxychains", "proxychains4",
    "catchsegv", "time", "eatmydata", "unbuffer", "rlwrap", "chpst", "sem", "expect",
    "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "ash", "yash", "rc", "pwsh",
}  # fmt: skip
_SHELLS = {"bash", "sh", "dash"}
# Interpreters and the options that hand them code inline.
_INLINE_CODE = {
    "python": {"-c"}, "python2": {"-c"}, "python3": {"-c"}, "pypy": {"-c"}, "pypy3": {"-c"},
    "perl": {"-e", "-E"}, "ruby": {"-e"}, "node": {"-e", "--eval", "-p", "--print"},
    "nodejs": {"-e", "--eval", "-p", "--print"}, "bun": {"-e", "--eval"},
    "php": {"-r"}, "lua": {"-e"}, "Rscript": {"-e"}, "osascript": {"-e"},
}  # fmt: skip
_AWKS = {"awk", "gawk", "mawk", "nawk", "busybox-awk"}
# Commands whose path arguments are files they write (for control-file protection).
_WRITERS = {"cp", "mv", "tee", "ln", "install", "rsync", "touch", "mkdir", "rm", "rmdir",
            "chmod", "chown", "truncate", "patch", "dd", "sed", "shred", "unlink"}  # fmt: skip
_CHDIR = {"cd", "pushd", "popd"}


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
        return os.path.basename(self.words[0]) if self.words else ""

    def __str__(self) -> str:
        return shlex.join(self.words)


@dataclass(frozen=True, slots=True)
class CommandAnalysis:
    commands: tuple[SimpleCommand, ...]
    unresolved: tuple[str, ...]  # why the line is not fully resolved (empty: it is)
    asks: tuple[str, ...] = ()  # resolved, but a person must look (e.g. writes outside)
    writes: tuple[str, ...] = ()  # workspace-relative paths the line writes
    blind_writes: tuple[str, ...] = ()  # write targets computed at run time

    @property
    def resolved(self) -> bool:
        return not self.unresolved


@dataclass
class _Walk:
    root: Path | None
    source: str = ""  # the text being read, for the words' own spelling
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


@lru_cache(maxsize=1024)
def analyse(command: str, root: Path | None = None) -> CommandAnalysis:
    walk = _Walk(root)
    _parse_into(command, walk)
    for kind, word, write in walk.redirects:
        _judge_target(kind, word, write, walk)
    return CommandAnalysis(
        tuple(walk.commands), tuple(walk.unresolved), tuple(walk.asks),
        tuple(dict.fromkeys(walk.writes)), tuple(walk.blind_writes),
    )  # fmt: skip


def _parse_into(command: str, walk: _Walk) -> None:
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


def _visit(script: grammar.Script, walk: _Walk) -> None:
    if script.functions:
        walk.fail("defines a shell function")
    for command in script.commands:
        _command(command, walk)
    for word in script.loose_words:
        _read(word, walk)  # a for-loop list: only its expansions matter
    for redirect in script.redirects:
        _redirect(redirect, walk)


def _read(node: grammar.Word, walk: _Walk, *, assignment_value: bool = False) -> Word:
    """Read a word; substitutions inside it are walked (for deny rules) and fail."""
    for inner in node.scripts:
        walk.fail("uses command or process substitution")
        _visit(inner, walk)
    word = read_word(node.raw, assignment_value=assignment_value)
    if word.unresolved:
        walk.fail(f"uses {word.unresolved}")
    return word


def _command(node: grammar.Simple, walk: _Walk) -> None:
    if node.literal:  # plain words only: each means itself
        values = tuple(w.raw for w in node.words)
        name = values[0].rpartition("/")[2]
        if name in _SPECIAL or name.startswith("python"):
            _add([Word(v, True) for v in values], walk)
        else:
            walk.commands.append(SimpleCommand(values))  # an ordinary program
        return
    for assignment in node.assignments:
        for inner in assignment.scripts:
            walk.fail("uses command or process substitution")
            _visit(inner, walk)
        _assignment(assignment.raw, walk)
    words = [_read(word, walk) for word in node.words]
    for redirect in node.redirects:
        _redirect(redirect, walk)
    if words:
        _add(words, walk)


def _assignment(raw: str, walk: _Walk) -> None:
    name, _, value = raw.partition("=")
    name = name.rstrip("+")
    word = read_word(value, assignment_value=True)
    if word.unresolved:
        walk.fail(f"uses {word.unresolved} in an assignment to {name}")
    if not safe_env(name):
        walk.fail(f"sets {name}, which is not on the safe list of variables")


def safe_env(name: str) -> bool:
    return name in SAFE_ENV or name.startswith(SAFE_ENV_PREFIXES)


def _redirect(node: grammar.Redirect, walk: _Walk) -> None:
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


def _judge_target(kind: str, word: Word, write: bool, walk: _Walk) -> None:
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
    if path.startswith("/dev/") and re.match(r"/dev/(tcp|udp)/", os.path.normpath(path)):
        walk.fail(f"opens a network connection through bash ({path})")
        return
    if walk.root is None:
        if os.path.isabs(path):
            walk.ask(f"{verb} {path}, outside the workspace")
        return
    if not os.path.isabs(path) and walk.changes_dir:
        (walk.blind_writes if write else walk.asks).append(
            f"{verb} {path} after changing directory"
        )
        return
    relative = walk.inside(path)
    if relative is None:
        walk.ask(f"{verb} {path}, outside the workspace")
    elif write:
        if walk.makes_links:
            walk.blind_writes.append(f"writes to {path} in a line that makes links")
        walk.writes.append(relative)


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


def _add(words: Sequence[Word], walk: _Walk, *, known_tail: bool = True) -> None:
    """One simple command (and, through wrappers, the command it runs)."""
    head = words[0]
    if not head.static:
        walk.fail(f"the command name is computed at run time ({head.value})")
        return
    known: int | None = None
    for index, word in enumerate(words):
        if not word.static:
            known = index
            break
    if not known_tail and known is None:
        known = len(words)
    values = tuple(w.value for w in words)
    name = values[0].rpartition("/")[2]
    entry = len(walk.commands)
    walk.commands.append(SimpleCommand(values, known))
    if name in _UNRESOLVED_BUILTINS:
        walk.fail(_UNRESOLVED_BUILTINS[name])
        return
    if name in _LAUNCHERS:
        walk.fail(f"{name} runs a program through options this analysis does not model")
        # For deny rules only: every later word might be the program it runs.
        for start in range(1, len(words)):
            if words[start].static and not words[start].value.startswith("-"):
                tail = tuple(w.value for w in words[start:])
                walk.commands.append(SimpleCommand(tail, _known(words[start:])))
        return
    if name not in _SPECIAL and not name.startswith("python"):
        return  # an ordinary program: nothing more to look at
    if name in _CHDIR:
        walk.changes_dir = True
    if name in _DECLARERS:
        _declare(name, words[1:], walk)
    if name == "ln":
        walk.makes_links = True
    inner = _look_through(name, list(words), walk)
    if inner is not None:
        walk.commands[entry] = SimpleCommand(values, known, wrapper=True)
        if inner.words:
            _add(inner.words, walk, known_tail=inner.known_tail)
    _inline_code(name, words, walk)
    if name in _WRITERS:
        _argument_writes(name, words, walk)


_DECLARERS = {"export", "declare", "typeset", "local", "readonly"}


def _special_names() -> frozenset[str]:
    """Every program name _add looks at more closely than "a program with arguments"."""
    return frozenset({*_CHDIR, *_DECLARERS, *_WRAPPERS, *_INLINE_CODE, *_AWKS, *_WRITERS,
                      *_UNRESOLVED_BUILTINS, *_LAUNCHERS, "ln", "find", "git"})  # fmt: skip


def _declare(name: str, args: Sequence[Word], walk: _Walk) -> None:
    """export/declare/...: assignments go through the safe list; -f (functions) fails."""
    for word in args:
        text = word.value
        if not word.static:
            walk.fail(f"{name} is given a word computed at run time ({text})")
        elif text.startswith("-"):
            if not re.fullmatch(r"-[xrpgilu]+", text):
                walk.fail(f"{name} is given an option this analysis does not know ({text})")
        elif "=" in text:
            variable = text.split("=", 1)[0].rstrip("+")
            if not safe_env(variable):
                walk.fail(f"sets {variable}, which is not on the safe list of variables")


@dataclass
class _Inner:
    words: list[Word]
    known_tail: bool = True  # False: more unknown words follow (xargs)


def _look_through(name: str, words: list[Word], walk: _Walk) -> _Inner | None:
    """The command a wrapper runs; None when ``name`` is no wrapper. Fails on the unknown."""
    rest = words[1:]
    if name in _WRAPPERS:
        return _WRAPPERS[name](rest, walk)
    if name == "find":
        for segment in _find_exec(rest):
            _add(segment, walk)
        return None
    if name == "git":
        return _git(words, walk)
    return None


def _options(
    name: str,
    rest: list[Word],
    walk: _Walk,
    flags: set[str],
    valued: set[str],
    *,
    stop_at_operand: bool = True,
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
            if stop_at_operand:
                return seen, rest[i:]
            break
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


def _env(rest: list[Word], walk: _Walk) -> _Inner:
    i = 0
    options = True  # until "--"; assignments may follow it
    while i < len(rest):
        word = rest[i]
        if not word.static:
            walk.fail(f"env is given a word computed at run time ({word.value})")
            return _Inner([])
        text = word.value
        if options and text in ("-i", "--ignore-environment", "-", "-0", "--null", "-v",
                                "--debug"):  # fmt: skip
            i += 1
        elif options and text in ("-u", "--unset", "-C", "--chdir"):
            if text in ("-C", "--chdir"):
                walk.changes_dir = True
            i += 2
        elif options and (
            text.startswith(("--unset=", "--chdir=")) or re.fullmatch(r"-[uC].+", text)
        ):
            walk.changes_dir = walk.changes_dir or "C" in text[:3] or "chdir" in text
            i += 1
        elif text == "--":
            i += 1
            options = False
        elif text.startswith("-") and options:
            walk.fail(f"env is given an option this analysis does not know ({text})")
            return _Inner([])
        elif "=" in text and not text.startswith("="):
            _assignment(text, walk)
            i += 1
        else:
            break
    return _Inner(rest[i:])


def _simple(flags: set[str], valued: set[str], *, operands: int = 0) -> Any:
    """A wrapper with an option grammar and ``operands`` words before the command."""

    def look(rest: list[Word], walk: _Walk, *, name: str = "") -> _Inner:
        parsed = _options(name or "wrapper", rest, walk, flags, valued)
        if parsed is None:
            return _Inner([])
        after = parsed[1]
        if len(after) < operands or any(not w.static for w in after[:operands]):
            walk.fail("a wrapper's operand is missing or computed at run time")
            return _Inner([])
        return _Inner(after[operands:])

    return look


def _named(name: str, look: Any) -> Any:
    return lambda rest, walk: look(rest, walk, name=name)


def _nice(rest: list[Word], walk: _Walk) -> _Inner:
    if rest and rest[0].static and re.fullmatch(r"-\d+", rest[0].value):
        return _Inner(rest[1:])  # the old form: nice -10 CMD
    look = _simple({"--help", "--version"}, {"-n", "--adjustment"})
    result: _Inner = look(rest, walk, name="nice")
    return result


def _command_builtin(rest: list[Word], walk: _Walk) -> _Inner:
    parsed = _options("command", rest, walk, {"-p", "-v", "-V"}, set())
    if parsed is None:
        return _Inner([])
    seen, after = parsed
    if any(opt in ("-v", "-V") for opt, _ in seen):
        return _Inner([])  # command -v NAME only looks the name up
    return _Inner(after)


_XARGS_LONG_FLAGS = {"--null", "--no-run-if-empty", "--verbose", "--interactive", "--exit",
                     "--open-tty"}  # fmt: skip
_XARGS_LONG_VALUED = {"--arg-file", "--delimiter", "--max-args", "--max-procs", "--max-chars",
                      "--process-slot-var"}  # fmt: skip
_XARGS_LONG_OPTIONAL = {"--replace", "--eof", "--max-lines"}  # value only after "="


def _xargs(rest: list[Word], walk: _Walk) -> _Inner:
    """xargs' complete option grammar; the command it runs gets the words it reads."""
    replace: str | None = None
    i = 0
    while i < len(rest):
        word = rest[i]
        if not word.static:
            walk.fail(f"xargs is given an option computed at run time ({word.value})")
            return _Inner([])
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
                return _Inner([])
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
            return _Inner([])
        i += step
    after = rest[i:] or [Word("echo", True)]
    if replace:  # each word holding the replace string gets a line of input
        after = [Word(w.value, False) if replace in w.value else w for w in after]
    # Without a replace string xargs appends words read from its input.
    return _Inner(after, known_tail=replace is not None)


def _shell(rest: list[Word], walk: _Walk, *, name: str = "bash") -> _Inner:
    """bash/sh/dash: only ``-c SCRIPT`` with known options is read; the script is parsed."""
    flags = {"-c", "-e", "-u", "-x", "-v", "-f", "-n", "-a", "-b", "-h", "-m", "-B", "-C",
             "-H", "-P", "-T", "-E", "-l", "--login", "--norc", "--noprofile", "--posix",
             "--noediting", "--restricted", "-r"}  # fmt: skip
    valued = {"-o", "+o"}
    script: list[Word] = []
    i = 0
    seen: set[str] = set()
    while i < len(rest):
        word = rest[i]
        if not word.static:
            walk.fail(f"{name} is given a word computed at run time ({word.value})")
            return _Inner([])
        text = word.value
        if text == "--" or text == "-":
            i += 1
            break
        if text.startswith("+o") or text in valued:
            i += 2 if text in valued else 1
            continue
        if not text.startswith("-"):
            break
        if text.startswith("--"):
            if text not in flags:
                walk.fail(f"{name} is given an option this analysis does not know ({text})")
                return _Inner([])
            seen.add(text)
            i += 1
            continue
        for ch in text[1:]:
            if "-" + ch == "-o":
                i += 1  # the option name follows
                break
            if "-" + ch not in flags:
                walk.fail(f"{name} is given an option this analysis does not know ({text})")
                return _Inner([])
            seen.add("-" + ch)
        i += 1
    script = rest[i:]
    if "-c" not in seen:
        why = "reads commands from a file" if script else "reads commands from its input"
        walk.fail(f"{name} {why}")
        return _Inner([])
    if not script:
        walk.fail(f"{name} -c has no command")
        return _Inner([])
    if not script[0].static:
        walk.fail(f"{name} -c runs a script computed at run time")
        return _Inner([])
    _parse_into(script[0].value, walk)
    return _Inner([])


def _git(words: list[Word], walk: _Walk) -> _Inner | None:
    """git's global options; -c only for harmless keys. The stripped command is listed too."""
    rest = words[1:]
    i = 0
    stripped = False
    while i < len(rest):
        word = rest[i]
        if not word.static:
            return None if i == 0 else _Inner([])
        text = word.value
        if text in ("-C", "-c") and i + 1 < len(rest):
            value = rest[i + 1]
            if not value.static:
                walk.fail(f"git {text} is given a value computed at run time")
                return _Inner([])
            if text == "-c" and not _safe_git_config(value.value):
                walk.fail(f"git -c {value.value.split('=')[0]} may run programs")
                return _Inner([])
            if text == "-C":
                walk.changes_dir = True
            i += 2
            stripped = True
        elif text in ("-p", "--paginate", "-P", "--no-pager", "--no-replace-objects",
                      "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs",
                      "--icase-pathspecs", "--no-optional-locks", "--bare"):  # fmt: skip
            i += 1
            stripped = True
        elif text.startswith("-") and text not in ("--version", "--help", "-h", "-v"):
            walk.fail(f"git is given a global option this analysis does not know ({text})")
            return _Inner([])
        else:
            break
    if rest[i : i + 1] and rest[i].static and rest[i].value == "config":
        _git_config(rest[i + 1 :], walk)
    if not stripped:
        return None
    # The same git run, as a rule naming its subcommand sees it. git itself stays a
    # command of its own (not a wrapper): allow rules must cover both spellings.
    walk.commands.append(SimpleCommand(tuple(w.value for w in [words[0], *rest[i:]]),
                                       _known([words[0], *rest[i:]])))  # fmt: skip
    return None


def _known(words: Sequence[Word]) -> int | None:
    return next((i for i, w in enumerate(words) if not w.static), None)


def _safe_git_config(setting: str) -> bool:
    key = setting.split("=", 1)[0].lower()
    return key.startswith(("color.", "advice.")) or key in {
        "core.quotepath",
        "user.name",
        "user.email",
        "init.defaultbranch",
        "log.showsignature",
        "diff.noprefix",
        "column.ui",
        "i18n.logoutputencoding",
    }


def _git_config(rest: list[Word], walk: _Walk) -> None:
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


_GIT_CONFIG_READS = {"--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch",
                     "--get-color", "--get-colorbool"}  # fmt: skip
_GIT_CONFIG_WRITES = {"--add", "--unset", "--unset-all", "--replace-all", "--rename-section",
                      "--remove-section", "-e", "--edit", "--file", "-f", "--blob"}  # fmt: skip
_GIT_CONFIG_VERBS = [["set"], ["unset"], ["edit"], ["rename-section"], ["remove-section"]]


def _inline_code(name: str, words: Sequence[Word], walk: _Walk) -> None:
    options = _INLINE_CODE.get(name)
    if options is None and name.startswith("python"):
        options = {"-c"}  # python3.11 and friends
    if options is None and name not in _AWKS:
        return
    if options is not None:
        letters = {o[1] for o in options if len(o) == 2}
        for word in words[1:]:
            text = word.value
            if not text.startswith("-") or text in ("-m", "-"):
                return  # the script or module: its own arguments follow
            bundle = re.match(r"-([A-Za-z]+)", text)
            if text in options or (bundle is not None and letters & set(bundle.group(1))):
                walk.fail(f"{name} runs code given inline ({text[:12]})")
                return
        return
    if name in _AWKS:
        if any(w.value.startswith("-f") or w.value == "--file" for w in words[1:]):
            walk.fail(f"{name} runs a program file")
        elif any(not w.static or _AWK_RUNS.search(w.value) for w in words[1:]):
            walk.fail(f"{name} program runs commands or writes files")


_AWK_RUNS = re.compile(r"system|\||getline|>")


def _argument_writes(name: str, words: Sequence[Word], walk: _Walk) -> None:
    """Path arguments of commands that write files, for control-file protection."""
    if walk.root is None:
        return
    if name == "sed" and not any(w.value.startswith(("-i", "--in-place")) for w in words[1:]):
        return
    for word in words[1:]:
        text = word.value
        if name == "dd" and text.startswith("of="):
            text = text[3:]
        elif text.startswith("-"):
            continue
        if not word.static:
            if "$" in text or any(part.startswith(".") for part in text.split("/")):
                walk.blind_writes.append(f"{name} writes to a path computed at run time ({text})")
            continue
        relative = walk.inside(text)
        if relative is not None:
            walk.writes.append(relative)


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


_WRAPPERS: dict[str, Callable[[list[Word], _Walk], _Inner]] = {
    "env": _env,
    "nohup": _named("nohup", _simple({"--help", "--version"}, set())),
    "setsid": _named("setsid", _simple({"-c", "--ctty", "-f", "--fork", "-w", "--wait"}, set())),
    "timeout": _named("timeout", _simple(
        {"--preserve-status", "--foreground", "-v", "--verbose"},
        {"-s", "--signal", "-k", "--kill-after"}, operands=1)),
    "stdbuf": _named("stdbuf", _simple(set(), {"-i", "--input", "-o", "--output", "-e",
                                                "--error"})),
    "nice": _nice,
    "xargs": _xargs,
    "command": _command_builtin,
    "builtin": _named("builtin", _simple(set(), set())),
    "exec": _named("exec", _simple({"-c", "-l"}, {"-a"})),
    "busybox": lambda rest, walk: _Inner(rest),
    "bash": _named("bash", _shell),
    "sh": _named("sh", _shell),
    "dash": _named("dash", _shell),
}  # fmt: skip
_SPECIAL = _special_names()
