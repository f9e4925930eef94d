"""The YAML frontmatter of a command file, read as the small subset these files use.

Command files carry a few flat keys (`description: …`, `argument-hint: …`,
`allowed-tools: Bash(git:*), Read` or a list of them). agentls reads only that subset,
with no YAML library: a scalar (plain, quoted, or a `|`/`>` block), an inline list
`[a, "b"]` or a block list of `- item` lines, and comments. Anything else is
`BrokenFrontmatter`, which names the line, so the file is skipped with a note rather
than read as something it did not say.
"""

from __future__ import annotations

import re

Value = str | list[str]

_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_-]*)\s*:(?:\s+(.*))?$")
_ITEM = re.compile(r"^\s+-(?:\s+(.*))?$")
_FENCES = ("---", "...")


class BrokenFrontmatter(ValueError):
    """The frontmatter is not the flat keys command files use (the message names the line)."""


def split_frontmatter(text: str) -> tuple[dict[str, Value], str]:
    """The keys of ``text``'s frontmatter and the body after it (the whole text when there
    is none). Keys are lower case with ``_`` for ``-``."""
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != "---":
        return {}, text
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in _FENCES), None)
    if end is None:
        raise BrokenFrontmatter("the frontmatter opened with --- is never closed")
    return _keys(lines[1:end]), "\n".join(lines[end + 1 :])


def _keys(lines: list[str]) -> dict[str, Value]:
    keys: dict[str, Value] = {}
    index = 0
    while index < len(lines):
        line = lines[index].rstrip()
        index += 1
        at = index + 1  # the file's line: the frontmatter starts on the second
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        found = _KEY.match(line)
        if found is None:
            raise BrokenFrontmatter(f"line {at}: not `key: value`: {line.strip()[:60]!r}")
        name = found.group(1).lower().replace("-", "_")
        raw = _without_comment(found.group(2) or "").strip()
        if raw in ("", "|", ">", "|-", ">-", "|+", ">+"):
            block = []
            while index < len(lines) and (not lines[index].strip() or lines[index][:1] in " \t"):
                block.append(lines[index])
                index += 1
            keys[name] = _block(raw, block, at)
        else:
            keys[name] = _scalar_or_list(raw, at)
    return keys


def _block(indicator: str, block: list[str], at: int) -> Value:
    """What follows a key with nothing after it: a list of `- item` lines, or a `|`/`>`
    block scalar (lines joined with newlines, or folded into one line)."""
    filled = [line for line in block if line.strip()]
    if not filled:
        return ""
    items = [_ITEM.match(line) for line in filled]
    if indicator == "" and all(items):
        return [_scalar(_without_comment(item.group(1) or ""), at) for item in items if item]
    if indicator == "":
        raise BrokenFrontmatter(f"line {at}: an indented value that is not a `- item` list")
    texts = [line.strip() for line in filled]
    return ("\n" if indicator.startswith("|") else " ").join(texts)


def _scalar_or_list(raw: str, at: int) -> Value:
    if raw.startswith("["):
        if not raw.endswith("]"):
            raise BrokenFrontmatter(f"line {at}: a list that is not closed with ]")
        inner = raw[1:-1].strip()
        return [_scalar(part, at) for part in _split_items(inner, at)] if inner else []
    if raw.startswith("{"):
        raise BrokenFrontmatter(f"line {at}: a mapping, where a text or a list was expected")
    return _scalar(raw, at)


def _scalar(raw: str, at: int) -> str:
    raw = raw.strip()
    if raw[:1] in ("'", '"'):
        quote = raw[0]
        if len(raw) < 2 or raw[-1] != quote:
            raise BrokenFrontmatter(f"line {at}: a quoted value that is not closed")
        inner = raw[1:-1]
        if quote == "'":
            return inner.replace("''", "'")
        return inner.replace('\\"', '"').replace("\\\\", "\\")
    return raw


def _split_items(inner: str, at: int) -> list[str]:
    """An inline list's items, split at commas outside quotes and parentheses."""
    items: list[str] = []
    current: list[str] = []
    quote = ""
    depth = 0
    for char in inner:
        if quote:
            quote = "" if char == quote else quote
        elif char in ("'", '"'):
            quote = char
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            items.append("".join(current))
            current = []
            continue
        current.append(char)
    if quote:
        where = f"line {at}: " if at else ""
        raise BrokenFrontmatter(f"{where}a quoted item that is not closed")
    items.append("".join(current))
    return [item for item in (i.strip() for i in items) if item]


def _without_comment(raw: str) -> str:
    """``raw`` without a trailing ` # comment` outside quotes."""
    quote = ""
    for index, char in enumerate(raw):
        if quote:
            quote = "" if char == quote else quote
        elif char in ("'", '"') and (index == 0 or raw[index - 1] in " [,"):
            quote = char
        elif char == "#" and (index == 0 or raw[index - 1] in " \t"):
            return raw[:index]
    return raw


def as_list(value: Value | None) -> list[str]:
    """A key that may be written as one text of comma-separated items or as a list;
    BrokenFrontmatter for a text whose quotes do not close."""
    if value is None:
        return []
    if isinstance(value, list):
        return [item for item in value if item.strip()]
    return [_scalar(item, 0) for item in _split_items(value, 0)]


def as_text(value: Value | None) -> str:
    if value is None:
        return ""
    return ", ".join(value) if isinstance(value, list) else value
