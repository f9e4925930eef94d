"""read_file: a text file's lines, numbered like ``cat -n``; binary files are described.

The workspace reads only the window the output may hold (`Workspace.read_lines`), so a
file of any size costs about as much memory as the lines shown.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict, Field

from agentls.contracts.tooling import ErrorCode, Risk, ToolError, ToolOutput
from agentls.workspace.interface import ToolContext, ToolDefinition
from agentls.workspace.lines import FileLines, Line, LineWindow

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000

# Leading bytes of common binary formats, for the description of a binary file.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF8", "GIF image"),
    (b"%PDF", "PDF document"),
    (b"PK\x03\x04", "zip archive (or jar/docx/xlsx/wheel)"),
    (b"\x1f\x8b", "gzip archive"),
    (b"\x7fELF", "ELF executable or library"),
    (b"SQLite format 3\x00", "SQLite database"),
    (b"\x00asm", "WebAssembly module"),
    (b"\xca\xfe\xba\xbe", "Java class or Mach-O universal binary"),
    (b"BZh", "bzip2 archive"),
    (b"\xfd7zXZ\x00", "xz archive"),
    (b"7z\xbc\xaf\x27\x1c", "7-zip archive"),
    (b"RIFF", "RIFF media (WAV/AVI/WebP)"),
)


class ReadFileInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    path: str = Field(
        description="File to read: relative to the workspace root, or absolute inside it."
    )
    offset: int | None = Field(
        default=None, ge=1, description="1-based line number to start at (default 1)."
    )
    limit: int | None = Field(
        default=None,
        ge=1,
        description=f"How many lines to read (default {DEFAULT_LIMIT}).",
    )


def _validate(params: ReadFileInput, ctx: ToolContext) -> None:
    # Normalised in place so subject() and permission rules see the workspace-relative path.
    params.path = ctx.workspace.relative(params.path)


async def _run(params: ReadFileInput, ctx: ToolContext) -> ToolOutput:
    rel = ctx.workspace.relative(params.path)
    start = params.offset or 1
    limit = params.limit or DEFAULT_LIMIT
    # Only the lines the output may hold are kept: a file of any size costs its window.
    window = LineWindow(
        start=start, limit=limit, max_chars=ctx.output_limit, line_chars=MAX_LINE_CHARS
    )
    part = await ctx.workspace.read_lines(rel, window)
    ctx.reads[rel] = part.version
    if not part.is_text:
        return ToolOutput(
            _describe_binary(rel, part),
            {"path": rel, "lines": 0, "totalLines": 0, "version": part.version},
        )
    total = part.total_lines
    if total == 0:
        body = "(empty file)"
        shown = 0
    elif start > total:
        raise ToolError(
            ErrorCode.INVALID_INPUT,
            f"offset {start} is past the end of {rel}, which has {total} lines",
        )
    else:
        body, shown = _numbered(part.lines, start, min(total, start - 1 + limit), total, ctx)
    meta = {"path": rel, "lines": shown, "totalLines": total, "version": part.version}
    return ToolOutput(body, meta)


def _numbered(
    lines: Sequence[Line], start: int, end: int, total: int, ctx: ToolContext
) -> tuple[str, int]:
    """Numbered lines from ``start`` to ``end``; returns the text and how many lines it
    holds (fewer when the output limit comes first)."""
    budget = ctx.output_limit - 120  # room for the closing note
    out: list[str] = []
    used = 0
    last = start - 1
    for number, line in enumerate(lines, start):
        text = line.text
        if line.length > MAX_LINE_CHARS:
            cut = line.length - MAX_LINE_CHARS
            text = f"{text} [... {cut:,} more characters on this line cut]"
        entry = f"{number:>6}\t{text}"
        if out and used + len(entry) + 1 > budget:
            break
        out.append(entry)
        used += len(entry) + 1
        last = number
    body = "\n".join(out)
    if last < end:
        body += (
            f"\n[output limit reached: lines {start}-{last} of {total} shown; "
            f"use offset={last + 1} to read on]"
        )
    elif last < total:
        body += f"\n[lines {start}-{last} of {total} shown; use offset={last + 1} to read on]"
    return body, last - start + 1


def _describe_binary(rel: str, part: FileLines) -> str:
    head = part.head
    guess = next((kind for magic, kind in _MAGIC if head.startswith(magic)), None)
    if guess is None and b"\0" not in head:
        guess = "text in an encoding other than UTF-8, or binary data"
    if guess is None:
        guess = mimetypes.guess_type(rel)[0] or "unknown"
    return f"[binary file, {part.size:,} bytes, type guess: {guess}; not shown]"


def _summary(params: ReadFileInput) -> str:
    if params.offset is None and params.limit is None:
        return f"read_file {params.path}"
    start = params.offset or 1
    end = "" if params.limit is None else str(start + params.limit - 1)
    return f"read_file {params.path}:{start}-{end}"


READ_FILE: ToolDefinition[ReadFileInput] = ToolDefinition(
    name="read_file",
    description=(
        "Read a text file from the workspace. Returns its lines numbered like `cat -n` "
        "(line number, a tab, then the line; the numbers are not part of the file). "
        f"Reads up to {DEFAULT_LIMIT} lines from `offset` (1-based); a note at the end says "
        "how to read on when the file is longer. Lines over "
        f"{MAX_LINE_CHARS} characters are cut. Binary files are described, not shown. "
        "Read a file before editing it: edits to a file that changed since you read it are "
        "refused. Use list_files for directories and search to find text across files."
    ),
    input_model=ReadFileInput,
    risk=Risk.READ,
    run=_run,
    subject_kind="path",
    subject=lambda params: params.path,
    summary=_summary,
    validate=_validate,
)
