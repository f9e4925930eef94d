"""Between LSP and the tools' types: positions, paths, problems, symbols, edits.

LSP positions count UTF-16 code units; tools count characters. Both the answers
of agentls's own servers and the editor's go through these, so each kind of
answer reads the same whoever gave it. lsprotocol loads only when an answer is
first converted (`lazy`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlparse

from agentls.intelligence.lazy import LazyModule
from agentls.workspace.language import CodeSymbol, Problem, Severity

if TYPE_CHECKING:
    from lsprotocol import types
else:
    types = LazyModule("lsprotocol.types")

log = logging.getLogger(__name__)
SEVERITIES: dict[int, Severity] = {1: "error", 2: "warning", 3: "information", 4: "hint"}
RANKS: dict[Severity, int] = {name: rank for rank, name in SEVERITIES.items()}


def utf16_column(line_text: str, column: int) -> int:
    """The UTF-16 offset of the character at ``column`` on the line."""
    return len(line_text[:column].encode("utf-16-le")) // 2


def char_offset(text: str, position: types.Position) -> int:
    """The character offset in ``text`` of an LSP position (clamped to the text)."""
    lines = text.splitlines(keepends=True)
    if position.line >= len(lines):
        return len(text)
    start = sum(len(line) for line in lines[: position.line])
    line = lines[position.line].rstrip("\r\n")
    units = 0
    for index, char in enumerate(line):
        if units >= position.character:
            return start + index
        units += 2 if ord(char) > 0xFFFF else 1
    return start + len(line)


def apply_edits(text: str, edits: Iterable[types.TextEdit]) -> str:
    """Apply a server's non-overlapping edits, last first so offsets stay valid."""
    spans = sorted(
        (
            (char_offset(text, e.range.start), char_offset(text, e.range.end), e.new_text)
            for e in edits
        ),
        key=lambda span: (span[0], span[1]),
        reverse=True,
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


def line_at(text: str, line: int) -> str:
    """The 0-based line ``line`` of the text, without its line break ('' past the end)."""
    lines = text.splitlines()
    return lines[line] if 0 <= line < len(lines) else ""


def from_fs_path(path: str) -> str:
    return Path(path).as_uri()


def to_fs_path(uri: str) -> str | None:
    """The file path of a file: URI (None for other schemes)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return unquote(parsed.path)


def problem(rel: str, item: types.Diagnostic, server: str) -> Problem:
    """A diagnostic of ``rel`` as a problem (its source, else the server that gave it)."""
    code = "" if item.code is None else str(item.code)
    message = " ".join(item.message.split())
    return Problem(
        rel, item.range.start.line + 1, message, item.source or server,
        SEVERITIES.get(int(item.severity or 1), "error"), code,
    )  # fmt: skip


def symbol_order(symbol: CodeSymbol) -> tuple[str, int, str]:
    return (symbol.path, symbol.line, symbol.name)


def flatten_symbols(
    items: Sequence[Any], rel: str, shown: Callable[[str], str], container: str = ""
) -> list[CodeSymbol]:
    """Document symbols (of ``rel``, with their children) or workspace symbols (each at its
    location's path as ``shown`` gives it) as one flat list."""
    found = []
    for item in items:
        kind = types.SymbolKind(item.kind).name.lower() if item.kind else "symbol"
        if isinstance(item, types.DocumentSymbol):
            found.append(
                CodeSymbol(item.name, kind, rel, item.selection_range.start.line + 1, container)
            )
            found += flatten_symbols(item.children or [], rel, shown, item.name)
            continue
        location = item.location
        line = location.range.start.line + 1 if hasattr(location, "range") else 1
        found.append(
            CodeSymbol(item.name, kind, shown(location.uri), line, item.container_name or "")
        )
    return found


def location_spots(result: Any) -> list[tuple[str, int]]:
    """Each location of a definition or references answer (Locations or LocationLinks) as
    its URI and 0-based line."""
    if result is None:
        return []
    items = list(result) if isinstance(result, (list, tuple)) else [result]
    spots = []
    for item in items:
        uri = getattr(item, "target_uri", None) or item.uri
        rng = getattr(item, "target_selection_range", None) or item.range
        spots.append((uri, rng.start.line))
    return spots


class NotFileEdits(ValueError):
    """A WorkspaceEdit that also creates, renames or deletes files."""


def edits_by_uri(edit: types.WorkspaceEdit) -> dict[str, list[types.TextEdit]]:
    """A WorkspaceEdit's text edits by document (`NotFileEdits` when it does more)."""
    found: dict[str, list[types.TextEdit]] = {}
    for uri, edits in (edit.changes or {}).items():
        found.setdefault(uri, []).extend(edits)
    for change in edit.document_changes or []:
        if not isinstance(change, types.TextDocumentEdit):
            raise NotFileEdits(type(change).__name__)
        found.setdefault(change.text_document.uri, []).extend(
            e for e in change.edits if isinstance(e, types.TextEdit)
        )
    return found


def from_wire(data: Any, kind: Any) -> Any:
    """Wire JSON (an editor's answer) as lsprotocol types; ValueError when it does not fit."""
    from lsprotocol import converters

    try:
        return converters.get_converter().structure(data, kind)
    except Exception as exc:
        log.info("an answer does not fit %s: %r", kind, exc)
        raise ValueError(str(exc)) from None
