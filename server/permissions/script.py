"""The shape of a parsed command line: what grammar.py builds and walk.py reads."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field


class Unsupported(Exception):
    """The line uses grammar this parser does not read."""


@dataclass(slots=True)
class Word:
    raw: str  # the source text, quotes and all
    scripts: Sequence[Script] = ()  # inside $(…), `…`, <(…)


@dataclass(slots=True)
class Redirect:
    op: str  # > >> >| < <> << <<- <<< >& <& &> &>>
    target: Word | None  # None for a duplication such as 2>&1 written without a word
    body: str | None = None  # a here-document's text
    quoted: bool = False  # a here-document whose delimiter was quoted: its body is literal


@dataclass(slots=True)
class Simple:
    assignments: list[Word]
    words: list[Word]
    redirects: list[Redirect]


# A command of plain words only, each read as it stands: just their text (no Word
# objects, assignments or redirections; the common case, kept cheap).
Literal = tuple[str, ...]


@dataclass(slots=True)
class Script:
    """A flat view of one command line: what the gate needs, in source order."""

    commands: list[Simple | Literal] = field(default_factory=list)
    loose_words: list[Word] = field(default_factory=list)  # for-loop lists
    redirects: list[Redirect] = field(default_factory=list)  # on compound commands
    functions: list[str] = field(default_factory=list)  # names of functions defined
