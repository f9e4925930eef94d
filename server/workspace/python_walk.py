"""The Python engine behind filesearch.py when ripgrep is absent: a walk that skips
hidden files and honours ``.rgignore``, ``.ignore``, ``.gitignore`` and
``.git/info/exclude`` in git's own pattern format, and listing and search over it.
It gives the same answers as ripgrep (tests/unit/workspace compare the two).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from agentls.workspace.interface import Listing, SearchMatch, SearchResult

_IGNORE_KINDS = (".rgignore", ".ignore", ".gitignore")  # highest precedence first


def glob_to_regex(glob: str, *, braces: bool = True) -> str:
    """Translate a gitignore-format glob to a regex body matching a posix path.

    Only for ignore files, whose format is git's; globs given by the model or
    the settings go through ``agentls.workspace.globs``."""
    out: list[str] = []
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if c == "*" and glob.startswith("**", i):
            whole_component = (i == 0 or glob[i - 1] == "/") and (i + 2 == n or glob[i + 2] == "/")
            if whole_component and i + 2 == n:
                out.append(".*")
            elif whole_component:
                out.append("(?:.*/)?")
                i += 1  # also consume the "/"
            else:
                out.append("[^/]*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(glob[i + 1]))
            i += 1
        elif c == "[" and (end := _class_end(glob, i)) > 0:
            body = glob[i + 1 : end].replace("\\", "\\\\").replace("[", "\\[")
            if body[:1] in ("!", "^"):
                body = "^" + body[1:]
            out.append(f"[{body}]")
            i = end
        elif c == "{" and braces and (end := _brace_end(glob, i)) > 0:
            options = _split_top_level(glob[i + 1 : end])
            out.append("(?:" + "|".join(glob_to_regex(o) for o in options) + ")")
            i = end
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


def _class_end(glob: str, start: int) -> int:
    j = start + 1
    if j < len(glob) and glob[j] in "!^":
        j += 1
    if j < len(glob) and glob[j] == "]":
        j += 1
    end = glob.find("]", j)
    return end if end > 0 else -1


def _brace_end(glob: str, start: int) -> int:
    depth = 0
    for j in range(start, len(glob)):
        if glob[j] == "{":
            depth += 1
        elif glob[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return -1


def _split_top_level(body: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for c in body:
        if c == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        depth += (c == "{") - (c == "}")
        current.append(c)
    parts.append("".join(current))
    return parts


@dataclass(frozen=True, slots=True)
class _Rule:
    regex: re.Pattern[str]
    negated: bool
    dir_only: bool


def parse_ignore(text: str) -> list[_Rule]:
    """Rules of one gitignore-format file, in file order (the last match wins)."""
    rules = []
    for raw in text.splitlines():
        line = raw.rstrip() if not raw.endswith("\\ ") else raw[:-2] + " "
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        line = line[1:] if negated else line
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        prefix = "" if "/" in line else "(?:.*/)?"
        body = glob_to_regex(line.lstrip("/"), braces=False)
        rules.append(_Rule(re.compile(f"^{prefix}{body}$", re.DOTALL), negated, dir_only))
    return rules


def _decide(rules: list[_Rule], path: str, is_dir: bool) -> bool | None:
    for rule in reversed(rules):
        if (is_dir or not rule.dir_only) and rule.regex.match(path):
            return not rule.negated
    return None


@dataclass(frozen=True, slots=True)
class _Layer:
    """The ignore rules of one folder; ``prefix``/``strip`` turn a root-relative path into
    one relative to that folder."""

    prefix: str
    strip: int
    by_kind: tuple[list[_Rule], ...]  # .rgignore, .ignore, .gitignore, .git/info/exclude
    has_git: bool

    def local(self, rel: str) -> str:
        return self.prefix + rel[self.strip :]


def _load_layer(folder: Path, prefix: str, strip: int) -> _Layer:
    by_kind = [_read_rules(folder / name) for name in _IGNORE_KINDS]
    by_kind.append(_read_rules(folder / ".git" / "info" / "exclude"))
    return _Layer(prefix, strip, tuple(by_kind), (folder / ".git").exists())


def _read_rules(path: Path) -> list[_Rule]:
    try:
        return parse_ignore(path.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return []


def _is_ignored(layers: list[_Layer], rel: str, is_dir: bool) -> bool:
    for kind in range(4):
        git_kind = kind >= 2
        for layer in reversed(layers):
            decision = _decide(layer.by_kind[kind], layer.local(rel), is_dir)
            if decision is not None:
                return decision
            if git_kind and layer.has_git:
                break  # git rules stop at the repository's top
    return False


def _layers_down_to(root: Path, base: str) -> list[_Layer]:
    """Ignore layers of the folders above the root, the root, and the folders down to base."""
    layers = []
    for depth, folder in reversed(list(enumerate(root.parents, start=1))):
        prefix = "/".join(root.parts[-depth:]) + "/"
        layers.append(_load_layer(folder, prefix, 0))
    layers.append(_load_layer(root, "", 0))
    if base != ".":
        parts = base.split("/")
        for k in range(1, len(parts) + 1):
            sub = "/".join(parts[:k])
            if (root / sub).is_dir():
                layers.append(_load_layer(root / sub, "", len(sub) + 1))
    return layers


def _walk(root: Path, base: str) -> Iterator[str]:
    """Workspace-relative file paths under base, in ``rg --sort path`` order."""
    start = root / base
    if start.is_file():
        yield base
        return
    if start.is_dir():
        yield from _walk_dir(root, start, base, _layers_down_to(root, base))


def _walk_dir(root: Path, folder: Path, rel_dir: str, layers: list[_Layer]) -> Iterator[str]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: os.fsencode(e.name))
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(".") or entry.is_symlink():
            continue
        rel = entry.name if rel_dir == "." else f"{rel_dir}/{entry.name}"
        is_dir = entry.is_dir(follow_symlinks=False)
        if not is_dir and not entry.is_file(follow_symlinks=False):
            continue
        if _is_ignored(layers, rel, is_dir):
            continue
        if is_dir:
            child = _load_layer(Path(entry.path), "", len(rel) + 1)
            yield from _walk_dir(root, Path(entry.path), rel, [*layers, child])
        else:
            yield rel


# --- the Python engine ------------------------------------------------------


def list_files(root: Path, base: str, wanted: Callable[[str], bool], limit: int) -> Listing:
    paths: list[str] = []
    for rel in _walk(root, base):
        if wanted(rel):
            paths.append(rel)
            if len(paths) > limit:
                return Listing(paths[:limit], truncated=True)
    return Listing(paths, truncated=False)


def search(
    root: Path,
    regex: re.Pattern[str],
    base: str,
    wanted: Callable[[str], bool],
    keep: Callable[[str], str | None],
    limit: int,
) -> SearchResult:
    explicit_file = (root / base).is_file()
    matches: list[SearchMatch] = []
    for rel in _walk(root, base):
        if not wanted(rel):
            continue
        try:
            data = (root / rel).read_bytes()
        except OSError:
            continue
        if b"\0" in data and not explicit_file:
            continue
        lines = data.decode("utf-8", errors="replace").split("\n")
        if lines[-1] == "":
            lines.pop()
        for number, line in enumerate(lines, start=1):
            if regex.search(line) and (shown := keep(line.rstrip("\r"))) is not None:
                matches.append(SearchMatch(rel, number, shown))
                if len(matches) > limit:
                    return SearchResult(matches[:limit], truncated=True, engine="python")
    return SearchResult(matches, truncated=False, engine="python")
