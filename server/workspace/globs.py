"""The one glob engine: permission rules, search and list_files globs, secret patterns.

Built on wcmatch so that every place that matches a glob agrees on its meaning.

Path globs (``match_path``) work on POSIX relative paths: ``*`` and ``?`` stay
within one segment, ``**`` spans any number of segments (also none), ``[...]``
is a class (``[!...]`` negates), ``{a,b}`` alternates, and dotfiles are matched
like any other name. A leading ``./`` in the pattern or the path means the same
as none. A backslash escapes the next character.

Text globs (``match_text``) are fnmatch-like, for command rules: ``*`` matches
any characters, spaces and ``/`` included; ``?`` one character; ``[...]`` a
class. Braces are literal there, since shell commands use them.

``escape_path``/``escape_text`` turn any text into a pattern matching exactly it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

# wcmatch is imported where a glob is first compiled, not when a face starts.
if TYPE_CHECKING:
    from wcmatch.fnmatch import WcMatcher as TextMatcher
    from wcmatch.glob import WcMatcher as PathMatcher


def _path_flags() -> int:
    from wcmatch import glob

    return glob.GLOBSTAR | glob.BRACE | glob.DOTGLOB | glob.FORCEUNIX


def match_path(pattern: str, path: str) -> bool:
    """True when the relative POSIX ``path`` matches the path glob ``pattern``."""
    return _path_matcher(_strip_dot(pattern)).match(_strip_dot(path))


def match_text(pattern: str, text: str) -> bool:
    """True when ``text`` matches the fnmatch-like ``pattern`` (``*`` crosses spaces and ``/``)."""
    return _text_matcher(pattern).match(text)


def escape_path(text: str) -> str:
    """A path glob matching exactly the path ``text``."""
    from wcmatch import glob

    return glob.escape(_strip_dot(text))


def escape_text(text: str) -> str:
    """A text glob matching exactly ``text``."""
    from wcmatch import fnmatch

    return fnmatch.escape(text)


def any_path_matcher(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    """One predicate true when any of the path globs matches (one regex, for hot loops)."""
    return _any_path(tuple(_strip_dot(p) for p in patterns))


@lru_cache(maxsize=64)
def _any_path(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    if not patterns:
        return lambda _path: False
    combined = _union(patterns)
    by_depth = _trailing_tails(patterns)
    if by_depth is None:
        return lambda path: combined.match(_strip_dot(path)) is not None

    def matches(path: str) -> bool:
        if path.startswith("./"):
            path = _strip_dot(path)
        segments = path.split("/")
        if "" in segments or "." in segments or ".." in segments:
            return combined.match(path) is not None  # rare spellings: the exact regex
        count = len(segments)
        for depth, literals, prefixes, suffixes, rest in by_depth:
            if depth > count:
                return False  # deeper tails cannot match a shorter path
            if depth == count:
                tail = path
            else:
                tail = segments[-1] if depth == 1 else "/".join(segments[-depth:])
            if (
                tail in literals
                or tail.startswith(prefixes)
                or tail.endswith(suffixes)
                or (rest is not None and rest.match(tail) is not None)
            ):
                return True
        return False

    return matches


def _union(patterns: tuple[str, ...]) -> re.Pattern[str]:
    from wcmatch import glob

    regexes, _ = glob.translate(list(patterns), flags=_path_flags())
    return re.compile("|".join(f"(?:{r})" for r in regexes))


# wcmatch's regex for a leading "**/" scans every position with a lookahead,
# about 10 us per path for the secret patterns. A "**/TAIL" whose TAIL spans a
# fixed number of segments matches exactly when the path's last segments match
# TAIL, so each such set becomes one matcher per depth.
_NOT_FIXED = re.compile(r"\*\*|[{}\[\\]")


def _trailing_tails(patterns: tuple[str, ...]) -> tuple[_Tails, ...] | None:
    """Per depth, the tails split by kind (only "*" and "?" are special in them), matched
    against that many segments with no "", "." or ".." among them: a literal tail is a
    set lookup, and "PREFIX*" and "*SUFFIX" one startswith or endswith for all of them (a
    star stays within the segment at its end, and may match nothing); the rest one regex.
    Each wcmatch alternative costs a scan, and most secret patterns are of the first kinds."""
    by_depth: dict[int, list[str]] = {}
    for pattern in patterns:
        tail = pattern[3:] if pattern.startswith("**/") else ""
        if not tail or "/" in (tail[0], tail[-1]) or "//" in tail or _NOT_FIXED.search(tail):
            return None
        by_depth.setdefault(tail.count("/") + 1, []).append(tail)
    return tuple(_split_tails(depth, group) for depth, group in sorted(by_depth.items()))


# depth, literal tails, prefixes, suffixes, and the regex of the others (None: no others)
_Tails = tuple[int, frozenset[str], tuple[str, ...], tuple[str, ...], re.Pattern[str] | None]


def _split_tails(depth: int, tails: list[str]) -> _Tails:
    literals: set[str] = set()
    prefixes: list[str] = []
    suffixes: list[str] = []
    rest: list[str] = []
    for tail in tails:
        wild = tail.count("*") + tail.count("?")
        if not wild:
            literals.add(tail)
        elif wild == 1 and tail.endswith("*"):
            prefixes.append(tail[:-1])
        elif wild == 1 and tail.startswith("*"):
            suffixes.append(tail[1:])
        else:
            rest.append(tail)
    regex = _union(tuple(rest)) if rest else None
    return depth, frozenset(literals), tuple(prefixes), tuple(suffixes), regex


def normalise(path: str) -> str:
    """A relative POSIX path without a leading "./" (the literal prefix, repeated)."""
    return _strip_dot(path)


def _strip_dot(text: str) -> str:
    # The literal prefix "./" (never a character set, unlike str.lstrip("./")).
    while text.startswith("./"):
        text = text[2:]
    return text


@lru_cache(maxsize=4096)
def _path_matcher(pattern: str) -> PathMatcher[str]:
    from wcmatch import glob

    return glob.compile(pattern, flags=_path_flags())


@lru_cache(maxsize=4096)
def _text_matcher(pattern: str) -> TextMatcher[str]:
    from wcmatch import fnmatch

    return fnmatch.compile(pattern, flags=fnmatch.DOTMATCH | fnmatch.FORCEUNIX)
