"""Programs the gate knows, each read by the closed grammar of its options.

A program is **known** when its options are listed here (and found to neither run
another program nor write a file the analysis does not see) or when it has a
grammar of its own elsewhere (wrappers, shells, interpreters, git, find, sed,
awk). For a known program the analysis finds every file its arguments name for
writing (control files then need a person), and an option it does not list, or
one that runs a program, makes the line unresolved. Every other program is
**unknown**: it may be a launcher or a writer in disguise (``setarch``, ``npx``,
``tar``), so while a deny rule for run_command exists only an allow rule that
names it, or a person, approves it.

GNU programs read options anywhere among their operands, and so does this.
A word bash computes at run time may turn into an option: a glob is expanded
now (its file names read as bash will pass them, ``-t.git`` included); any
other such word writes somewhere the analysis cannot tell.
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from agentls.permissions import options
from agentls.permissions.options import Options, Parsed
from agentls.permissions.words import Word


class Walker(Protocol):
    root: Path | None
    changes_dir: bool
    makes_links: bool
    blind_writes: list[str]

    def fail(self, why: str) -> None: ...
    def write(self, path: str) -> None: ...


def _long(*names: str) -> frozenset[str]:
    return frozenset(names)


_HELP = ("--help", "--version")
# The file writers, with their GNU coreutils option grammars.
_CP = Options(
    flags="abdfHilLnPprRsTuvx",
    valued="St",
    long_flags=_long(*_HELP, "--archive", "--attributes-only", "--copy-contents",
                     "--dereference", "--force", "--interactive", "--link", "--no-dereference",
                     "--no-clobber", "--parents", "--recursive", "--remove-destination",
                     "--strip-trailing-slashes", "--symbolic-link", "--no-target-directory",
                     "--verbose", "--one-file-system", "--debug", "--keep-directory-symlink"),
    long_valued=_long("--suffix", "--target-directory", "--sparse", "--no-preserve"),
    long_optional=_long("--backup", "--preserve", "--reflink", "--update", "--context"),
    writes=_long("-t", "--target-directory"),
)  # fmt: skip
_MV = Options(
    flags="bfinTuvZ",
    valued="St",
    long_flags=_long(*_HELP, "--force", "--interactive", "--no-clobber",
                     "--strip-trailing-slashes", "--no-target-directory", "--verbose",
                     "--exchange", "--no-copy", "--debug", "--context"),
    long_valued=_long("--suffix", "--target-directory"),
    long_optional=_long("--backup", "--update"),
    writes=_long("-t", "--target-directory"),
)  # fmt: skip
_INSTALL = Options(
    flags="bcCdDpsTvZ",
    valued="gmoSt",
    long_flags=_long(*_HELP, "--compare", "--directory", "--preserve-timestamps", "--strip",
                     "--no-target-directory", "--verbose", "--preserve-context", "--debug"),
    long_valued=_long("--group", "--mode", "--owner", "--suffix", "--target-directory"),
    long_optional=_long("--backup", "--context"),
    writes=_long("-t", "--target-directory"),
    runs=_long("--strip-program"),
)  # fmt: skip
_LN = Options(
    flags="bdfFinsLPrTv",
    valued="St",
    long_flags=_long(*_HELP, "--directory", "--force", "--interactive", "--logical",
                     "--no-dereference", "--physical", "--relative", "--symbolic",
                     "--no-target-directory", "--verbose"),
    long_valued=_long("--suffix", "--target-directory"),
    long_optional=_long("--backup"),
    writes=_long("-t", "--target-directory"),
)  # fmt: skip
_EVERY_OPERAND = {
    "tee": Options(flags="aip", long_flags=_long(*_HELP, "--append", "--ignore-interrupts"),
                   long_optional=_long("--output-error")),
    "touch": Options(flags="acfhm", valued="drt",
                     long_flags=_long(*_HELP, "--no-create", "--no-dereference"),
                     long_valued=_long("--date", "--reference", "--time")),
    "mkdir": Options(flags="pvZ", valued="m", long_flags=_long(*_HELP, "--parents", "--verbose"),
                     long_valued=_long("--mode"), long_optional=_long("--context")),
    "rm": Options(flags="dfiIrRv",
                  long_flags=_long(*_HELP, "--force", "--one-file-system", "--no-preserve-root",
                                   "--recursive", "--dir", "--verbose"),
                  long_optional=_long("--interactive", "--preserve-root")),
    "rmdir": Options(flags="pv", long_flags=_long(*_HELP, "--ignore-fail-on-non-empty",
                                                  "--parents", "--verbose")),
    "truncate": Options(flags="co", valued="rs",
                        long_flags=_long(*_HELP, "--no-create", "--io-blocks"),
                        long_valued=_long("--reference", "--size")),
    "shred": Options(flags="fuvxz", valued="ns",
                     long_flags=_long(*_HELP, "--force", "--verbose", "--exact", "--zero"),
                     long_valued=_long("--iterations", "--random-source", "--size"),
                     long_optional=_long("--remove")),
    "unlink": Options(long_flags=_long(*_HELP)),
    "mktemp": Options(flags="dqtu", valued="p",
                      long_flags=_long(*_HELP, "--directory", "--dry-run", "--quiet"),
                      long_valued=_long("--suffix"), long_optional=_long("--tmpdir")),
}  # fmt: skip
# The first operand is not a path: a mode or an owner (unless --reference names one).
_MODE_FIRST = {
    "chmod": Options(flags="cfvR",
                     long_flags=_long(*_HELP, "--changes", "--silent", "--quiet", "--verbose",
                                      "--no-preserve-root", "--preserve-root", "--recursive"),
                     long_valued=_long("--reference")),
    "chown": Options(flags="cfvRhHLP",
                     long_flags=_long(*_HELP, "--changes", "--dereference", "--no-dereference",
                                      "--quiet", "--silent", "--recursive", "--verbose",
                                      "--preserve-root", "--no-preserve-root"),
                     long_valued=_long("--from", "--reference")),
}  # fmt: skip
_MODE_FIRST["chgrp"] = _MODE_FIRST["chown"]
_CHMOD_MODE = re.compile(r"[ugoa]*[-+=][rwxXst]*(?:,[ugoa]*[-+=][rwxXst]*)*|[-+=]?[0-7]{1,4}")

# Programs whose options and operands are all data, except the options named: each
# option list was read whole, and none of their other options runs a program or
# writes a file.
DATA = frozenset({
    "ls", "dir", "vdir", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "cut", "tr",
    "nl", "tac", "rev", "paste", "join", "fold", "fmt", "expand", "unexpand", "column", "od",
    "hexdump", "base64", "base32", "md5sum", "sha1sum", "sha224sum", "sha256sum",
    "sha384sum", "sha512sum", "b2sum", "cksum", "sum", "seq", "yes", "sleep", "date",
    "uname", "whoami", "id", "groups", "nproc", "arch", "printenv", "tty", "basename",
    "dirname", "realpath", "readlink", "strings", "factor", "numfmt", "tsort", "expr", "jq",
    "which", "stat", "du", "df", "diff", "cmp", "comm", "pwd", "echo", "printf", "true",
    "false", "test", "[", "locale", "getconf", "cal", "look",
})  # fmt: skip
# Data programs with options that write a file or run a program.
_DATA_EXCEPT = {
    "sort": Options(writes=_long("-o", "--output"), runs=_long("--compress-program"),
                    valued="kotST"),
    "shuf": Options(writes=_long("-o", "--output"), valued="inoe"),
    "tree": Options(writes=_long("-o"), runs=_long("-R")),
    "rg": Options(runs=_long("--pre", "--pre-glob")),
}  # fmt: skip

KNOWN = frozenset({
    *DATA, *_DATA_EXCEPT, *_EVERY_OPERAND, *_MODE_FIRST, "cp", "mv", "install", "ln", "link",
    "dd", "sed", "patch", "uniq", "xxd",
})  # fmt: skip
SYSTEM_BIN = ("/bin/", "/usr/bin/", "/sbin/", "/usr/sbin/", "/usr/local/bin/")


def is_known(program: str) -> bool:
    """Whether the program named by a command's first word is one listed here (given
    by its name, or by a path in a system folder: ``./ls`` is the workspace's)."""
    name = program.rpartition("/")[2]
    if "/" in program and not program.startswith(SYSTEM_BIN):
        return False
    return name in KNOWN


UNKNOWN_WRITERS = frozenset({"rsync"})


def unknown_writes(name: str, words: Sequence[Word], walk: Walker) -> None:
    """An unknown program that is a file writer all the same (rsync): its operands are
    taken as written, so a control file among them still needs a person."""
    for word in words[1:]:
        if not word.static:
            walk.blind_writes.append(f"{name} writes to a path computed at run time")
        elif not word.value.startswith("-"):
            walk.write(word.value)


def check(name: str, words: Sequence[Word], walk: Walker, *, appended: bool = False) -> None:
    """Read a known program's arguments: the files it writes, and forms it does not
    list (which fail the line). ``appended``: it gets more arguments at run time."""
    if name in DATA:
        return
    grammar = _DATA_EXCEPT.get(name)
    if grammar is not None:
        if grammar.writes or grammar.runs:
            _data_with_exceptions(name, words, grammar, walk, appended)
        return
    if appended:
        walk.blind_writes.append(f"{name} writes to paths it reads at run time")
    if name == "dd":
        _dd(words, walk)
    elif name == "sed":
        sed(words, walk)
    elif name == "patch":
        if not any(w.value in ("--dry-run", "-C", "--check") for w in words[1:] if w.static):
            walk.blind_writes.append("patch writes the files its patch names")
    elif name in ("uniq", "xxd"):
        _after_first_operand(name, words, walk)
    elif name == "link":
        walk.makes_links = True
        _writes_operands(name, words, walk, Options(long_flags=_long(*_HELP)), skip=1)
    elif name in _EVERY_OPERAND:
        _writes_operands(name, words, walk, _EVERY_OPERAND[name])
    elif name in _MODE_FIRST:
        _mode_first(name, words, walk)
    else:
        _copy_like(name, words, walk)


def expand(name: str, words: Sequence[Word], walk: Walker) -> list[str] | None:
    """The arguments as bash will pass them: globs expanded now; None (with a blind
    write noted) when a word is computed otherwise."""
    out: list[str] = []
    for word in words:
        if word.static:
            out.append(word.value)
            continue
        matches = glob_now(word, walk)
        if matches is None:
            walk.blind_writes.append(
                f"{name} is given a word computed at run time ({word.value}), which may "
                "be an option or a path it writes"
            )
            return None
        out.extend(matches)
    return out


def glob_now(word: Word, walk: Walker) -> list[str] | None:
    """The paths a glob names now (bash expands it as the command starts; hidden files
    only when the glob spells the dot), or None when the word is more than a glob
    Python reads the way bash does."""
    text = word.value
    if not word.glob or walk.changes_dir or walk.root is None or "[^" in text or "[[:" in text:
        return None
    if not _PLAIN_GLOB.fullmatch(text):
        return None
    return sorted(glob.glob(text, root_dir=walk.root)) or [text]


_PLAIN_GLOB = re.compile(r"[^$`{}~\\'\"]+")


def parse(name: str, args: Sequence[str], grammar: Options, walk: Walker) -> Parsed | None:
    """Options anywhere among the operands (GNU), by ``grammar``."""
    return options.read(name, args, grammar, walk, permute=True)


def _data_with_exceptions(
    name: str, words: Sequence[Word], grammar: Options, walk: Walker, appended: bool
) -> None:
    if appended:
        walk.fail(f"{name} gets arguments at run time, which may be options that write")
        return
    args = expand(name, words[1:], walk)
    if args is None:
        return
    for index, text in enumerate(args):
        key = text.partition("=")[0]
        if key in grammar.runs or (
            not text.startswith("--") and text.startswith("-") and _runs_short(text, grammar)
        ):
            walk.fail(f"{name} {key} runs a program")
            return
        if key in grammar.writes:
            value = text.partition("=")[2] or (args[index + 1] if index + 1 < len(args) else "")
            walk.write(value)
        elif text.startswith("-") and not text.startswith("--") and len(text) > 2:
            for letter_index, letter in enumerate(text[1:], start=1):
                if "-" + letter in grammar.writes:
                    glued = text[letter_index + 1 :]
                    walk.write(glued or (args[index + 1] if index + 1 < len(args) else ""))
                    break
                if letter in grammar.valued:
                    break


def _runs_short(text: str, grammar: Options) -> bool:
    for letter in text[1:]:
        if "-" + letter in grammar.runs:
            return True
        if letter in grammar.valued:
            return False
    return False


def _read(name: str, words: Sequence[Word], walk: Walker, grammar: Options) -> Parsed | None:
    """A command's arguments as bash passes them, read by its grammar."""
    args = expand(name, words[1:], walk)
    return None if args is None else parse(name, args, grammar, walk)


def _writes_operands(
    name: str, words: Sequence[Word], walk: Walker, grammar: Options, *, skip: int = 0
) -> None:
    parsed = _read(name, words, walk, grammar)
    if parsed is None:
        return
    if name == "mktemp" and (parsed.given("-p", "--tmpdir", "-t") or not parsed.operands):
        return  # made in the temporary folder
    for operand in parsed.operands[skip:]:
        walk.write(operand)


def _mode_first(name: str, words: Sequence[Word], walk: Walker) -> None:
    args = expand(name, words[1:], walk)
    if args is None:
        return
    if name == "chmod" and args and _CHMOD_MODE.fullmatch(args[0]):
        args = ["--", *args]  # a mode such as -w reads like an option
        parsed = Parsed(operands=args[1:])
    else:
        found = parse(name, args, _MODE_FIRST[name], walk)
        if found is None:
            return
        parsed = found
    operands = parsed.operands
    if not parsed.given("--reference"):
        operands = operands[1:]
    for operand in operands:
        walk.write(operand)


def _after_first_operand(name: str, words: Sequence[Word], walk: Walker) -> None:
    """uniq IN OUT, xxd IN OUT: every word after the first that is not an option (a
    value of an option may be counted too: more writes, never fewer)."""
    args = expand(name, words[1:], walk)
    if args is None:
        return
    operands = [a for a in args if not a.startswith("-") or a == "-"]
    for operand in operands[1:]:
        walk.write(operand)


def _copy_like(name: str, words: Sequence[Word], walk: Walker) -> None:
    """cp, mv, install, ln: the destination (or -t DIR), each source's name inside it,
    and for mv the sources, which move away."""
    grammar = {"cp": _CP, "mv": _MV, "install": _INSTALL, "ln": _LN}[name]
    parsed = _read(name, words, walk, grammar)
    if parsed is None:
        return
    operands = parsed.operands
    if name == "cp" and parsed.given("-l", "--link", "-s", "--symbolic-link"):
        walk.makes_links = True  # later writes through the new names reach the old files
    if name == "install" and parsed.given("-d", "--directory"):
        for operand in operands:
            walk.write(operand)
        return
    folders = parsed.values("-t", "--target-directory")
    if folders:
        sources, destinations = operands, folders
    elif name == "ln" and len(operands) == 1:
        sources, destinations = operands, ["."]
    elif len(operands) >= 2:
        sources, destinations = operands[:-1], operands[-1:]
    else:
        return  # nothing copied: cp alone fails
    into = not parsed.given("-T", "--no-target-directory")
    for destination in destinations:
        walk.write(destination)
        if into:
            for source in sources:
                base = os.path.basename(source.rstrip("/")) or source
                walk.write(os.path.join(destination, base))
    if name == "mv":
        for source in sources:
            walk.write(source)


_DD_OPERANDS = frozenset({
    "if", "bs", "ibs", "obs", "cbs", "count", "skip", "seek", "iseek", "oseek", "conv",
    "iflag", "oflag", "status",
})  # fmt: skip


def _dd(words: Sequence[Word], walk: Walker) -> None:
    args = expand("dd", words[1:], walk)
    if args is None:
        return
    for text in args:
        key, eq, value = text.partition("=")
        if key == "of" and eq:
            walk.write(value)
        elif (not eq or key not in _DD_OPERANDS) and text not in _HELP:
            walk.fail(f"dd is given an operand this analysis does not know ({text})")
            return


# sed: its options, and the commands of its scripts that neither run a program
# (e, s///e) nor read or write a file (r R w W, s///w).
_SED = Options(
    flags="nrEsuzb",
    valued="efl",
    optional="i",
    long_flags=_long(*_HELP, "--quiet", "--silent", "--regexp-extended", "--separate",
                     "--unbuffered", "--null-data", "--posix", "--sandbox", "--debug",
                     "--follow-symlinks", "--binary"),
    long_valued=_long("--expression", "--file", "--line-length"),
    long_optional=_long("--in-place"),
)  # fmt: skip


def sed(words: Sequence[Word], walk: Walker) -> None:
    parsed = _read("sed", words, walk, _SED)
    if parsed is None:
        return
    if parsed.given("-f", "--file"):
        walk.fail("sed reads its script from a file")
        return
    scripts = parsed.values("-e", "--expression")
    files = parsed.operands
    if not scripts:
        if not files:
            return
        scripts, files = files[:1], files[1:]
    for script in scripts:
        why = sed_script_problem(script)
        if why:
            walk.fail(f"sed script {why}")
            return
    if parsed.given("-i", "--in-place"):
        for path in files:
            walk.write(path)


_SED_ADDRESS = re.compile(
    r"(?:\d+(?:~\d+)?|\$|/(?:[^/\\\n]|\\.)*/[IM]*|\\(.)(?:(?!\1)[^\\\n]|\\.)*\1[IM]*)"
)
_SED_SIMPLE = set("pdDqQ=nNgGhHxlPzFbtT:{}!#")
_SED_TEXT = set("aic")


def sed_script_problem(script: str) -> str:
    """Why a sed script is not read as harmless ("" when it is): a closed grammar of
    addresses and commands."""
    i = 0
    n = len(script)
    while i < n:
        c = script[i]
        if c in " \t\n;":
            i += 1
            continue
        address = _SED_ADDRESS.match(script, i)
        if address is not None:
            i = address.end()
            if script.startswith(",", i):
                second = _SED_ADDRESS.match(script, i + 1)
                if second is None:
                    return "has an address it does not read"
                i = second.end()
            while i < n and script[i] in " \t!":
                i += 1
            continue
        if c == "#":
            end = script.find("\n", i)
            i = n if end < 0 else end
        elif c in "bt:T":
            end = _command_end(script, i + 1)
            i = end
        elif c in _SED_SIMPLE:
            i += 1
        elif c in _SED_TEXT:
            end = script.find("\n", i)
            i = n if end < 0 else end + 1
        elif c in "sy":
            delimiter = script[i + 1 : i + 2]
            if not delimiter or delimiter in "\\\n":
                return "has a command it does not read"
            i += 2
            for _ in range(2):
                while i < n and script[i] != delimiter:
                    i += 2 if script[i] == "\\" else 1
                if i >= n:
                    return "has an unterminated command"
                i += 1
            if c == "s":
                flags = re.match(r"[gpiImM0-9]*", script[i:])
                assert flags is not None
                i += flags.end()
                if i < n and script[i] in "ew":
                    return f"runs a program or writes a file (s///{script[i]})"
        else:
            return f"has a command that runs a program or touches a file ({c})"
    return ""


def _command_end(script: str, start: int) -> int:
    end = start
    while end < len(script) and script[end] not in ";\n}":
        end += 1
    return end
