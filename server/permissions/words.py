"""One shell word read from its source text, the way bash expands it, failing closed.

grammar.py finds where each word is; this module decides what the word *is*. A word
is **static** when its value is known before bash runs (literal characters,
quotes, backslashes, ANSI-C ``$'…'``, a leading ``~`` or ``~user``). It is
**dynamic** when bash computes it from the run-time state but cannot run
anything while doing so (``$NAME``, ``${NAME}``, globs, brace expansion,
``~+``/``~-``): its value is unknown, so rules treat it as "could be anything".
Anything else (command, process or arithmetic substitution, any parameter
expansion with operators, backquotes, extended globs, an unterminated quote)
makes the word **unresolved**.

Each word also carries its **rendering**: the spelling that means to bash exactly
what this module read, built from what it read and not from the source (literal
text single-quoted, only the expansions it recognised left bare), so a line
approved by rules runs as it was judged (render.py).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL = set("0123456789?#$!@*-")
# ${NAME}, ${#NAME}, ${NAME:-word} / ${NAME-word} / ${NAME:+word} with a plain word
# (not := or :?, which assign or end the shell).
_SIMPLE_BRACED = re.compile(r"#?[A-Za-z_][A-Za-z0-9_]*(?::?[-+][A-Za-z0-9_./@%,:+=-]*)?")
_BRACE = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")
# The brace expansions and bracket expressions that are rendered as they are: plain
# characters only. Any other is rendered literally (bash then expands nothing).
_PLAIN_BRACE = re.compile(
    r"\{(?:[A-Za-z0-9_./:@%+=-]*(?:,[A-Za-z0-9_./:@%+=-]*)+"
    r"|-?[0-9]+\.\.-?[0-9]+(?:\.\.-?[0-9]+)?|[A-Za-z]\.\.[A-Za-z](?:\.\.-?[0-9]+)?)\}"
)
_PLAIN_BRACKET = re.compile(r"\[[!^]?[A-Za-z0-9_.,:@%+=-]+\]")
# What bash reads as itself in any place of a line (= is left out: a word of the
# command's name that holds one would be an assignment).
_BARE = re.compile(r"[A-Za-z0-9_./,:@%+-]+")
KEYWORDS = frozenset({
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until",
    "do", "done", "in", "function", "time", "coproc",
})  # fmt: skip


def quote(value: str) -> str:
    """``value`` as one word bash reads literally: bare when that is plain, else in
    single quotes."""
    if _BARE.fullmatch(value) and value not in KEYWORDS:
        return value
    return "'" + value.replace("'", "'\\''") + "'"


_C_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
              "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Word:
    value: str  # the expanded text when static; the source spelling otherwise
    static: bool
    unresolved: str = ""  # why the word cannot be read statically ("" when it can)
    tilde: bool = False  # starts with ~ or ~user (expanded in value)
    # Dynamic only through glob characters: bash matches ``value`` against file names.
    glob: bool = False
    # The word as it runs when rules approved the line ("" where nothing renders it:
    # an unresolved word, or one made up for a rule to read).
    rendered: str = ""


# Runs of characters with no meaning to bash's expansions, copied as they are.
_RUN = re.compile(r"[^\\'\"$`*?\[{@+!<>:]+")
_QUOTED_RUN = re.compile(r'[^"\\$`]+')
_LITERAL = re.compile(r"[A-Za-z0-9_./,:@%+=-]+")
# An argument spelled like an assignment: bash (not in POSIX mode) expands a ~ right
# after its first = and after each :, as in an assignment's value (dd of=~/x).
_ASSIGNMENT_LIKE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def read_word(raw: str, *, assignment_value: bool = False) -> Word:
    """Expand ``raw`` (one word's source text) statically, or say why not."""
    word = _read_cached(raw, assignment_value)
    if word.tilde and word.static:  # HOME is read now, not cached
        value = os.path.expanduser(word.value)
        return Word(value, True, "", True, rendered=quote(value))
    return word


@lru_cache(maxsize=4096)
def _read_cached(raw: str, assignment_value: bool) -> Word:
    """read_word without expanding ``~``: a pure function of the text, so cached (lines
    repeat their words, and one session its lines)."""
    if _LITERAL.fullmatch(raw) and not (assignment_value and ":~" in raw):
        # nothing bash would expand: the common case, made fast
        return Word(raw, True, rendered=quote(raw))
    reader = _Reader(raw)
    try:
        reader.run(assignment_value)
    except _Unresolved as exc:
        return Word(raw, False, str(exc))
    if not reader.static:
        return Word(
            raw, False, "", reader.tilde, glob=not reader.computed, rendered=reader.rendering()
        )
    value = "".join(reader.out)
    return Word(value, True, "", reader.tilde, rendered=quote(value))


@lru_cache(maxsize=4096)
def static_word(text: str) -> Word:
    """The word of plain characters ``text``, which means itself."""
    return Word(text, True, rendered=quote(text))


def clear_cache() -> None:
    _read_cached.cache_clear()
    static_word.cache_clear()


class _Unresolved(Exception):
    pass


class _Reader:
    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.i = 0
        self.out: list[str] = []
        self.static = True
        self.tilde = False
        self.computed = False  # dynamic for a reason other than glob characters
        # The rendering: finished pieces, and literal text not yet quoted.
        self.pieces: list[str] = []
        self.literal: list[str] = []

    def lit(self, text: str) -> None:
        """Text that means itself."""
        self.out.append(text)
        self.literal.append(text)

    def bare(self, text: str) -> None:
        """An expansion bash is to perform (a parameter, a glob, braces, a tilde),
        spelled exactly as it is rendered."""
        self.out.append(text)
        if self.literal:
            self.pieces.append(quote("".join(self.literal)))
            self.literal.clear()
        self.pieces.append(text)

    def rendering(self) -> str:
        if self.literal:
            self.pieces.append(quote("".join(self.literal)))
            self.literal.clear()
        return "".join(self.pieces)

    def run(self, assignment_value: bool) -> None:
        raw = self.raw
        if raw.startswith("~"):
            self._tilde()
        colons = assignment_value  # does ~ after ':' expand?
        like = None if assignment_value else _ASSIGNMENT_LIKE.match(raw)
        if like is not None:  # bash expands ~ in NAME=~… and NAME=…:~… arguments too
            colons = True
            if raw.startswith("~", like.end()):
                self.static = False
                self.computed = True
                self.bare(raw[: like.end() + 1])
                self.i = like.end() + 1
        while self.i < len(raw):
            run = _RUN.match(raw, self.i)
            if run is not None:
                self.lit(run.group())
                self.i = run.end()
                continue
            c = raw[self.i]
            if c == "\\":
                self._backslash()
            elif c == "'":
                end = raw.find("'", self.i + 1)
                if end < 0:
                    raise _Unresolved("an unterminated quote")
                self.lit(raw[self.i + 1 : end])
                self.i = end + 1
            elif c == '"':
                self._double_quoted()
            elif c == "$":
                self._dollar(quoted=False)
            elif c == "`":
                raise _Unresolved("command substitution")
            elif c in "*?[":
                if c in "?*" and raw.startswith("(", self.i + 1):
                    raise _Unresolved("an extended glob")
                self.static = False  # a glob: the file names are unknown
                bracket = _PLAIN_BRACKET.match(raw, self.i) if c == "[" else None
                if bracket is not None:
                    self.bare(bracket.group())
                    self.i = bracket.end()
                elif c == "[":
                    self.lit(c)  # rendered as the character itself: bash then matches it
                    self.i += 1
                else:
                    self.bare(c)
                    self.i += 1
            elif c in "@+!" and raw.startswith("(", self.i + 1):
                raise _Unresolved("an extended glob")
            elif c == "{" and _BRACE.match(raw, self.i):
                self.static = False  # brace expansion makes several words
                self.computed = True
                brace = _PLAIN_BRACE.match(raw, self.i)
                if brace is not None:
                    self.bare(brace.group())
                    self.i = brace.end()
                else:
                    self.lit(c)  # rendered as the character: no expansion runs
                    self.i += 1
            elif c in "<>" and raw.startswith("(", self.i + 1):
                raise _Unresolved("process substitution")
            elif colons and c == ":" and raw.startswith("~", self.i + 1):
                self.static = False  # PATH-like values expand ~ after ':'
                self.computed = True
                self.bare(":~")
                self.i += 2
            else:
                self.lit(c)
                self.i += 1

    def _tilde(self) -> None:
        end = self.raw.find("/")
        prefix = self.raw if end < 0 else self.raw[:end]
        if any(q in prefix for q in "'\"\\$`"):
            return  # a quoted tilde is a literal ~
        user = prefix[1:]
        if user[:1] in ("+", "-") or user[:1].isdigit() or not re.fullmatch(r"[\w.-]*", user):
            self.static = False  # ~+, ~-, ~+N, ~N: the directory stack
            self.computed = True
        self.tilde = True
        self.bare(prefix)  # a static word is rendered from its expanded value instead
        self.i = len(prefix)

    def _backslash(self) -> None:
        nxt = self.raw[self.i + 1 : self.i + 2]
        if nxt != "\n":
            self.lit(nxt or "\\")
        self.i += 2

    def _double_quoted(self) -> None:
        raw = self.raw
        self.i += 1
        while self.i < len(raw):
            run = _QUOTED_RUN.match(raw, self.i)
            if run is not None:
                self.lit(run.group())
                self.i = run.end()
                continue
            c = raw[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\":
                nxt = raw[self.i + 1 : self.i + 2]
                if nxt in ('"', "\\", "$", "`"):
                    self.lit(nxt)
                elif nxt != "\n":
                    self.lit("\\" + nxt)
                self.i += 2
            elif c == "$":
                self._dollar(quoted=True)
            elif c == "`":
                raise _Unresolved("command substitution")
            else:
                self.lit(c)
                self.i += 1
        raise _Unresolved("an unterminated quote")

    def _dollar(self, *, quoted: bool) -> None:
        raw = self.raw
        nxt = raw[self.i + 1 : self.i + 2]
        if nxt == "(":
            kind = "arithmetic expansion" if raw.startswith("((", self.i + 1) else "substitution"
            raise _Unresolved(f"command {kind}" if kind == "substitution" else kind)
        if nxt == "[":
            raise _Unresolved("arithmetic expansion")
        if nxt == "\\" and raw.startswith("\n", self.i + 2):
            # bash joins the lines first, so this may be $( or ${: never read as text
            raise _Unresolved("a line continuation right after $")
        if nxt == "{":
            end = raw.find("}", self.i + 2)
            inner = raw[self.i + 2 : end] if end >= 0 else ""
            if end < 0 or not _SIMPLE_BRACED.fullmatch(inner):
                raise _Unresolved(f"a parameter expansion bash evaluates (${{{inner[:30]}…}})")
            self.static = False
            self.computed = True
            self._parameter(raw[self.i : end + 1], quoted)
            self.i = end + 1
            return
        if not quoted and nxt == "'":
            self._ansi_c()
            return
        if not quoted and nxt == '"':
            self.i += 1  # $"…" is a translated string: read like "…"
            self._double_quoted()
            return
        name = _NAME.match(raw, self.i + 1)
        if name is not None:
            self.static = False
            self.computed = True
            self._parameter("${" + name.group() + "}", quoted)
            self.i = name.end()
        elif nxt and nxt in _SPECIAL:
            self.static = False
            self.computed = True
            self._parameter("${" + nxt + "}", quoted)
            self.i += 2
        else:
            self.lit("$")
            self.i += 1

    def _parameter(self, braced: str, quoted: bool) -> None:
        """A parameter expansion, braced so no following character joins its name;
        in double quotes when it was, so it is split and globbed only where it was."""
        self.bare(f'"{braced}"' if quoted else braced)

    def _ansi_c(self) -> None:
        raw = self.raw
        i = self.i + 2
        while i < len(raw) and raw[i] != "'":
            c = raw[i]
            if c != "\\":
                self.lit(c)
                i += 1
                continue
            esc = raw[i + 1 : i + 2]
            if esc in _C_ESCAPES:
                self.lit(_C_ESCAPES[esc])
                i += 2
            elif esc in ("x", "u", "U"):
                width = {"x": 2, "u": 4, "U": 8}[esc]
                digits = re.match(rf"[0-9A-Fa-f]{{1,{width}}}", raw[i + 2 :])
                if digits is None:
                    self.lit("\\" + esc)
                    i += 2
                else:
                    code = int(digits.group(), 16)
                    if code == 0 or code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                        raise _Unresolved("an ANSI-C escape it does not read")
                    self.lit(chr(code))
                    i += 2 + len(digits.group())
            elif esc and esc in "01234567":
                digits = re.match(r"[0-7]{1,3}", raw[i + 1 :])
                assert digits is not None
                if int(digits.group(), 8) & 0xFF == 0:
                    raise _Unresolved("a NUL character, where bash cuts the word")
                self.lit(chr(int(digits.group(), 8) & 0xFF))
                i += 1 + len(digits.group())
            else:
                raise _Unresolved("an ANSI-C escape it does not read")
        if i >= len(raw):
            raise _Unresolved("an unterminated quote")
        self.i = i + 1
