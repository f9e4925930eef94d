"""The shape of a parsed command line: what grammar.py builds and walk.py reads."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


class Unsupported(Exception):
    """The line uses grammar this parser does not read."""


@dataclass(slots=True)
class SourceWord:
    """A word as written: its source text, and the command lines of its substitutions
    (words.py reads what it means: a `words.Word`)."""

    raw: str  # the source text, quotes and all
    scripts: Sequence[Script] = ()  # inside $(…), `…`, <(…)


@dataclass(slots=True)
class Redirect:
    op: str  # > >> >| < <> << <<- <<< >& <& &> &>>
    target: SourceWord | None  # None for a duplication such as 2>&1 written without a word
    # A here-document's text as bash gives it to the command (each line with its
    # newline; for <<- without leading tabs; for an unquoted delimiter, lines a
    # backslash continues are joined, as bash joins them before looking for it).
    body: str | None = None
    quoted: bool = False  # a here-document whose delimiter was quoted: its body is literal
    fd: str = ""  # the descriptor written before the operator (2>x), "" when none
    dup: str = ""  # a duplication's source without a word: 1 in 2>&1, - in >&-


@dataclass(slots=True)
class Simple:
    assignments: list[SourceWord]
    words: list[SourceWord]
    redirects: list[Redirect]


# A command of plain words only, each read as it stands: just their text (no SourceWord
# objects, assignments or redirections; the common case, kept cheap).
Literal = tuple[str, ...]


@dataclass(slots=True)
class ForHead:
    """``for NAME in WORDS``: the words are None when the list is left out."""

    name: str
    words: list[SourceWord] | None


# One step of a line's layout: the index of a command in Script.commands, one of
# LAYOUT_TOKENS, a for-loop head, or a redirection on a compound command.
Step = int | str | ForHead | Redirect

# The operators and reserved words a layout may hold: the line is rendered from
# these and the commands alone (render.py), so nothing else of the source runs.
LAYOUT_TOKENS = frozenset({
    ";", "&", "&&", "||", "|", "|&", "!", "\n", "(", ")", "{", "}",
    "if", "then", "elif", "else", "fi", "while", "until", "do", "done",
})  # fmt: skip


@dataclass(slots=True)
class Script:
    """A flat view of one command line: what the gate needs, in source order, and
    its layout (the structure between the commands), from which it is rendered."""

    commands: list[Simple | Literal] = field(default_factory=list)
    loose_words: list[SourceWord] = field(default_factory=list)  # for-loop lists
    redirects: list[Redirect] = field(default_factory=list)  # on compound commands
    functions: list[str] = field(default_factory=list)  # names of functions defined
    loop_names: list[str] = field(default_factory=list)  # variables for-loops set
    layout: list[Step] = field(default_factory=list)
