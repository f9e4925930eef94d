"""What a session's label and a run's title show: the person's own words.

The faces put what they add to a request after it, each addition a paragraph of
its own (the file the person looks at, a selection, the line a request was
written on, a resource attached in an agent panel), so the person's words are
the prompt's first paragraph.
"""

from __future__ import annotations

import re

_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def request_words(prompt: str) -> str:
    """The prompt's first paragraph, stripped."""
    return _PARAGRAPH_BREAK.split(prompt.strip(), maxsplit=1)[0].strip()
