"""The walk over one parsed command line: what it gathers, and each simple command.

shell.analyse makes one Walk per line. The walk visits every simple command at
any depth (substitutions, subshells, loops, ``bash -c`` strings and, through
wrappers.py, the commands wrappers run), lists each one, and notes why the line
is unresolved, what a person must see, the files it writes (redirections, and
the path arguments of the programs programs.py knows), and the programs it runs
that no list here knows. It also renders each command from what it read
(render.py): the line that runs when rules approve it.
"""

from __future__ import annotations

import os
import shlex
import stat
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from agentls.permissions import builtins, grammar, programs, render, wrappers
from agentls.permissions.interpreters import PYTHON_NAME
from agentls.permissions.render import NO_HEREDOCS, Rendered
from agentls.permissions.words import Word, quote, read_word, static_word
from agentls.workspace.control import is_own_path

# Word index -> its rendering, where the walk renders a word itself (a bash -c script).
Overrides = dict[int, str] | None

# Assignments that cannot change which program runs or what it loads.
SAFE_ENV = frozenset({
    "LANG", "LANGUAGE", "TZ", "TERM", "COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR",
    "CLICOLOR", "CI", "DEBUG", "VERBOSE", "TMPDIR", "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONWARNINGS",
    "RUST_BACKTRACE", "RUST_LOG", "NODE_ENV", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
    "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
})  # fmt: skip
SAFE_ENV_PREFIXES = ("LC_",)

# Programs known to run another program through options this analysis does not model:
# deny rules look at every later word (a program not listed here is unknown, never
# taken as harmless: see programs.py).
_LAUNCHERS = frozenset({
    "sudo", "doas", "su", "pkexec", "runuser", "sg", "chroot", "unshare", "nsenter",
    "setpriv", "flock", "watch", "script", "strace", "ltrace", "valgrind", "gdb",
    "taskset", "ionice", "chrt", "prlimit", "systemd-run", "parallel", "fakeroot",
    "firejail", "bwrap", "proot", "torsocks", "proxychains", "proxychains4",
    "catchsegv", "time", "eatmydata", "unbuffer", "rlwrap", "chpst", "sem", "expect",
    "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "ash", "yash", "rc", "pwsh",
})  # fmt: skip
_CHDIR = frozenset({"cd", "pushd", "popd"})
_DECLARERS = frozenset({"export", "declare", "typeset", "local", "readonly"})
# Builtins read by their forms (those whose arguments are all data need nothing).
_CHECKED_BUILTINS = builtins.NAMES - _DECLARERS - builtins.ELSEWHERE - builtins.DATA
# Every program name the walk looks at more closely than "a program with arguments".
_SPECIAL = frozenset({*builtins.NAMES, *_LAUNCHERS, *programs.KNOWN, *wrappers.NAMES})
# What the walk does with each such name, resolved once: one lookup per command.
_BUILTIN, _LAUNCHER, _CD, _DECLARER, _LINKS, _WRAPPER, _LOOKS, _CODE, _PROGRAM, _DATA = (
    1 << bit for bit in range(10)
)
_ROLES: dict[str, int] = {
    name: (name in _CHECKED_BUILTINS and _BUILTIN)
    | (name in _LAUNCHERS and _LAUNCHER)
    | (name in _CHDIR and _CD)
    | (name in _DECLARERS and _DECLARER)
    | (name == "ln" and _LINKS)
    | (name in wrappers.WRAPPERS and _WRAPPER)
    | (name in ("find", "git") and _LOOKS)
    | ((name in wrappers.INLINE_CODE or name in wrappers.AWKS) and _CODE)
    | (name in programs.KNOWN and _PROGRAM)
    for name in _SPECIAL
}
# A program whose arguments are all data (ls, cat, echo…): known, with nothing to read.
_ROLES.update({
    name: _DATA for name, role in _ROLES.items()
    if (role in (0, _PROGRAM) and name in programs.DATA) or (role == 0 and name in builtins.DATA)
})  # fmt: skip


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
    # Programs it runs that no list of the analysis knows (programs.py): they may run
    # others or write files unseen, so while deny rules exist only an allow rule
    # naming them, or a person, approves them.
    unknown: tuple[str, ...] = ()
    # What the line is spelled back from when a decision needs it (render.py).
    script: grammar.Script | None = None
    overrides: dict[int, dict[int, str]] = field(default_factory=dict)

    @property
    def resolved(self) -> bool:
        return not self.unresolved

    def rendering(self) -> str | None:
        """The line as it runs when rules approve it: spelled back from what was read
        (render.py). None when it is not resolved, or cannot be spelled back."""
        if self.unresolved:
            return None
        if self.script is None:
            return ""
        return render_script(self.script, self.overrides)


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
    unknown: list[str] = field(default_factory=list)
    # PATH's folders when one is inside the workspace (where a known name may be shadowed).
    shadows: tuple[tuple[str, bool], ...] | None = None
    # id() of a command node -> the words of it the walk renders itself (a bash -c script).
    overrides: dict[int, dict[int, str]] = field(default_factory=dict)
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

    def add(self, words: Sequence[Word], *, known_tail: bool = True) -> Overrides:
        return _add(words, self, known_tail=known_tail)

    def also(self, words: Sequence[Word]) -> None:
        """List another spelling of a command already listed (deny rules see both)."""
        self.commands.append(SimpleCommand(tuple(w.value for w in words), known_prefix(words)))

    def parse(self, command: str) -> str | None:
        """Walk a script inside the line (bash -c); its rendering, for the line's own."""
        script = parse_into(command, self)
        if script is None or self.unresolved:
            return None
        text = render_script(script, self.overrides)
        if text is None:
            self.fail("cannot be spelled back the way it was read")
        return text

    def assignment(self, raw: str) -> None:
        _assignment(raw, self)

    def write(self, path: str) -> None:
        """A path the line writes, for control-file protection."""
        if self.root is None or not path:
            return
        if not os.path.isabs(path) and self.changes_dir:
            self.blind_writes.append(f"writes to {path} after changing directory")
            return
        relative = self.inside(path)
        if relative is not None:
            self.writes.append(relative)
            if self.linked(relative):
                self.blind_writes.append(f"writes to {path}, a file with other names (hard links)")
        elif is_own_path(os.path.realpath(os.path.join(self.root, path))):
            self.blind_writes.append(f"writes agentls's own file {path}")

    def linked(self, relative: str) -> bool:
        """Whether the workspace file has other names: a write to it changes them too,
        and one may be a control file."""
        assert self.root is not None
        try:
            status = os.lstat(os.path.join(self.root, relative))
        except (OSError, ValueError):
            return False
        return stat.S_ISREG(status.st_mode) and status.st_nlink > 1

    def unknown_program(self, program: str) -> None:
        if program not in self.unknown:
            self.unknown.append(program)

    def analysis(self, script: grammar.Script | None) -> CommandAnalysis:
        return CommandAnalysis(
            commands=tuple(self.commands),
            unresolved=tuple(self.unresolved),
            asks=tuple(self.asks),
            writes=tuple(dict.fromkeys(self.writes)),
            blind_writes=tuple(self.blind_writes),
            unknown=tuple(self.unknown),
            script=script,
            overrides=self.overrides,
        )


def parse_into(command: str, walk: Walk) -> grammar.Script | None:
    """Walk ``command``; its parsed form, or None when it cannot be read."""
    if not command.strip():
        return grammar.Script()
    if "\x00" in command:
        walk.fail("contains a NUL character")
        return None
    try:
        script = grammar.parse(command)
    except grammar.Unsupported as exc:
        walk.fail(f"uses shell grammar this analysis does not read ({str(exc)[:60]})")
        return None
    except RecursionError:
        walk.fail("nests too deeply to be read")
        return None
    _visit(script, walk)
    return script


def _visit(script: grammar.Script, walk: Walk) -> None:
    if script.functions:
        walk.fail("defines a shell function")
    for name in script.loop_names:
        if not builtins.settable(name, safe_env(name)):
            walk.fail(f"a for loop sets {name}, which is not on the safe list of variables")
    for command in script.commands:
        _command(command, walk)
    for word in script.loose_words:
        _read(word, walk)  # a for-loop list: only its expansions matter
    for redirect in script.redirects:
        _redirect(redirect, walk)


def render_script(script: grammar.Script, overrides: dict[int, dict[int, str]]) -> str | None:
    """A walked script spelled back: each command from what its words were read to."""
    rendered: list[Rendered] = []
    for node in script.commands:
        command = _rendered(node, overrides.get(id(node)))
        if command is None:
            return None
        rendered.append(command)
    return render.line(script, rendered)


def _rendered(node: grammar.Simple | grammar.Literal, overrides: Overrides) -> Rendered | None:
    if isinstance(node, tuple):  # plain characters: only a word with = needs quotes
        if overrides is None:
            text = " ".join(node)
            return (text if "=" not in text else _quoted(node)), NO_HEREDOCS
        return _with([quote(word) for word in node], overrides), NO_HEREDOCS
    parts = [_assignment_rendered(a.raw) for a in node.assignments]
    if node.words:
        parts.append(_with([read_word(w.raw).rendered for w in node.words], overrides))
    heredocs: tuple[str, ...] = NO_HEREDOCS
    for redirect in node.redirects:
        spelled = render.redirect(redirect)
        if spelled is None:
            return None
        parts.append(spelled[0])
        heredocs += spelled[1]
    return " ".join(parts), heredocs


def _read(node: grammar.SourceWord, walk: Walk, *, assignment_value: bool = False) -> Word:
    """Read a word; substitutions inside it are walked (for deny rules) and fail."""
    for inner in node.scripts:
        walk.fail("uses command or process substitution")
        _visit(inner, walk)
    word = read_word(node.raw, assignment_value=assignment_value)
    if word.unresolved:
        walk.fail(f"uses {word.unresolved}")
    return word


def _command(node: grammar.Simple | grammar.Literal, walk: Walk) -> None:
    """Walk one simple command."""
    if isinstance(node, tuple):  # plain words only: each means itself
        name = node[0].rpartition("/")[2]
        role = _ROLES.get(name, 0)
        if role == _DATA:
            walk.commands.append(SimpleCommand(node))
            _known_data(name, node[0], walk)
            return
        if role or (name.startswith(("python", "pypy")) and PYTHON_NAME.fullmatch(name)):
            overrides = _listed(
                name, [static_word(v) for v in node], node, None, role or _CODE, walk
            )
            if overrides:
                walk.overrides[id(node)] = overrides
        else:
            walk.commands.append(SimpleCommand(node))  # an ordinary program
            walk.unknown_program(node[0])
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
        overrides = _add(words, walk)
        if overrides:
            walk.overrides[id(node)] = overrides


def _quoted(words: Sequence[str]) -> str:
    return " ".join(quote(word) for word in words)


def _with(texts: list[str], overrides: Overrides) -> str:
    """The words of a command, each as rendered or as the walk rendered it itself."""
    for index, text in (overrides or {}).items():
        texts[index] = text
    return " ".join(texts)


def _assignment(raw: str, walk: Walk) -> None:
    name, _, value = raw.partition("=")
    word = read_word(value, assignment_value=True)
    bare = name.rstrip("+")
    if word.unresolved:
        walk.fail(f"uses {word.unresolved} in an assignment to {bare}")
    if not safe_env(bare):
        walk.fail(f"sets {bare}, which is not on the safe list of variables")


def _assignment_rendered(raw: str) -> str:
    name, _, value = raw.partition("=")
    return f"{name}={read_word(value, assignment_value=True).rendered}"


def _redirect(node: grammar.Redirect, walk: Walk) -> None:
    if node.target is None:
        return  # a file descriptor duplication such as 2>&1
    word = _read(node.target, walk)
    if node.op in ("<<", "<<-"):
        if not node.quoted:
            why = render.body_problem(node.body or "")
            if why:
                walk.fail(why)
        return
    if node.op == "<<<":
        return  # a here-string is data; its expansions were read above
    walk.redirects.append((node.op, word, node.op not in ("<", "<&")))


def _add(words: Sequence[Word], walk: Walk, *, known_tail: bool = True) -> Overrides:
    """One simple command (and, through wrappers, the command it runs); the words it
    renders itself."""
    statics = [w.static for w in words]
    if not statics[0]:
        walk.fail(f"the command name is computed at run time ({words[0].value})")
        return None
    if False in statics:
        known: int | None = statics.index(False)
    else:
        known = None if known_tail else len(words)
    values = tuple([w.value for w in words])
    name = values[0].rpartition("/")[2]
    role = _ROLES.get(name, 0)
    if role == _DATA:
        walk.commands.append(SimpleCommand(values, known))
        _known_data(name, values[0], walk)
        return None
    if not role:
        if not (name.startswith(("python", "pypy")) and PYTHON_NAME.fullmatch(name)):
            walk.commands.append(SimpleCommand(values, known))
            walk.unknown_program(values[0])
            if name in programs.UNKNOWN_WRITERS:
                programs.unknown_writes(name, words, walk)
            return None  # an ordinary program: nothing more to look at
        role = _CODE
    return _listed(name, words, values, known, role, walk, known_tail)


def _known_data(name: str, program: str, walk: Walk) -> None:
    """A data program is the one named only by its name (./cat is the workspace's), and
    only if a workspace folder on PATH does not hide it."""
    if "/" in program:
        if not program.startswith(programs.SYSTEM_BIN):
            walk.unknown_program(program)
    elif walk.shadows is not None and name not in builtins.NAMES:
        shadow = shadowing(name, walk.shadows)
        if shadow is not None:
            walk.fail(f"{name} would run {shadow}, a file in the workspace, not the program")


def _listed(
    name: str,
    words: Sequence[Word],
    values: tuple[str, ...],
    known: int | None,
    role: int,
    walk: Walk,
    known_tail: bool = True,
) -> Overrides:
    """A command whose name has a role (``role``, from _ROLES): listed, then looked at."""
    # A wrapper's grammar always names the command it runs (perhaps none): allow rules
    # look only at that one.
    walk.commands.append(SimpleCommand(values, known, bool(role & _WRAPPER)))
    _known_data(name, values[0], walk)  # ./cat is the workspace's, whatever its name
    if role & _BUILTIN:
        builtins.check(name, words[1:], walk)
    if role & _LAUNCHER:
        walk.fail(f"{name} runs a program through options this analysis does not model")
        # For deny rules only: every later word might be the program it runs.
        for start in range(1, len(words)):
            if words[start].static and not values[start].startswith("-"):
                walk.also(words[start:])
        return None
    if role & _CD:
        walk.changes_dir = True
    if role & _DECLARER:
        builtins.declare(name, words[1:], walk, SAFE_ENV)
    if role & _LINKS:
        walk.makes_links = True
    overrides: Overrides = None
    if role & (_WRAPPER | _LOOKS):
        inner = wrappers.look_through(name, list(words), walk)
        if inner is not None:
            overrides = inner.overrides
            if inner.words:
                offset = len(words) - len(inner.words)
                found = _add(inner.words, walk, known_tail=inner.known_tail)
                if found:
                    overrides = {**(overrides or {}), **{offset + k: v for k, v in found.items()}}
    if role & _CODE:
        wrappers.inline_code(name, words, walk)
    if role & _PROGRAM:
        programs.check(name, words, walk, appended=not known_tail)
    return overrides


def shadowing(name: str, folders: tuple[tuple[str, bool], ...]) -> str | None:
    """The workspace file a known program's name would run instead of the program: a
    folder of PATH inside the workspace (an activated venv) may come first, and the
    model may write there. None when the name finds the program it finds elsewhere."""
    found: str | None = None
    for folder, inside in folders:
        candidate = os.path.join(folder, name)
        if found is None:
            if not os.path.lexists(candidate):
                continue
            if not inside:
                return None  # found outside the workspace first
            found = candidate
        elif not inside and os.path.exists(candidate):
            same = os.path.realpath(candidate) == os.path.realpath(found)
            return None if same else found  # a link to the very program is that program
    return found


def path_folders(root: Path) -> tuple[tuple[str, bool], ...] | None:
    """For a line's walk: PATH's folders, or None when none is the workspace's (the
    common case, where no name needs looking up)."""
    return _path_folders(str(root), os.environ.get("PATH", ""))


@lru_cache(maxsize=64)
def _path_folders(root: str, path: str) -> tuple[tuple[str, bool], ...] | None:
    """PATH's folders in order, each marked when it is inside the workspace (a relative
    one is: commands start there); None when none is."""
    base = os.path.realpath(root)
    folders: list[tuple[str, bool]] = []
    for entry in path.split(os.pathsep):
        folder = os.path.realpath(os.path.join(base, entry))
        folders.append((folder, folder == base or folder.startswith(base + "/")))
    return tuple(folders) if any(inside for _, inside in folders) else None


def known_prefix(words: Sequence[Word]) -> int | None:
    """How many leading words are static; None when all of them are."""
    return next((i for i, w in enumerate(words) if not w.static), None)


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
