"""A prompt and what the person points at, as the one text the core takes.

Every face sends the person's words with what they point at: the file they are
looking at, the lines they selected, a file they link or paste. Each face reads
its own protocol's way of saying so (the editor's selection, ACP's content
blocks) into these parts; how the parts read to the model is decided here, once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# The most of a selection the prompt carries.
MAX_SELECTION_CHARS = 20_000


@dataclass(frozen=True)
class LookingAt:
    """The file the person had in front of them when they asked."""

    path: str


@dataclass(frozen=True)
class Selection:
    """Lines the person selected, numbered from 1."""

    path: str
    first_line: int
    last_line: int
    text: str


@dataclass(frozen=True)
class PointsAt:
    """A file named by a link; the model reads it with its tools."""

    where: str


@dataclass(frozen=True)
class Included:
    """A file's text handed over with the prompt."""

    where: str
    text: str


@dataclass(frozen=True)
class NotIncluded:
    """Something handed over that the prompt cannot carry, named so it is not lost."""

    note: str


Pointer = LookingAt | Selection | PointsAt | Included | NotIncluded


def prompt_with_context(parts: Sequence[str | Pointer]) -> str:
    """The person's words and what they point at, in the order given, a blank line apart."""
    texts = (_text(part) for part in parts)
    return "\n\n".join(text for text in texts if text)


def _text(part: str | Pointer) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part, LookingAt):
        return f"(The person is looking at {part.path}.)"
    if isinstance(part, Selection):
        text = part.text[:MAX_SELECTION_CHARS].rstrip()
        return f"From {part.path}, lines {part.first_line}-{part.last_line}:\n```\n{text}\n```"
    if isinstance(part, PointsAt):
        return f"[the person points at {part.where}]"
    if isinstance(part, Included):
        return f'<context source="{part.where}">\n{part.text}\n</context>'
    return f"[{part.note}]"
