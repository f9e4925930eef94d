"""read_file: a text file's lines, numbered like ``cat -n``; binary files are described."""

from __future__ import annotations

import mimetypes

from pydantic import BaseModel, ConfigDict, Field

from agentls.contracts.tooling import ErrorCode, Risk, ToolError, ToolOutput
from agentls.workspace.interface import ToolContext, ToolDefinition

DEFAULT_LIMIT = 2000
MAX_LINE_CHARS = 2000
_BINARY_SNIFF_BYTES = 8192

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
    snapshot = await ctx.workspace.read(rel)
    ctx.reads[rel] = snapshot.version
    text = _decode_text(snapshot.data)
    if text is None:
        return ToolOutput(
            _describe_binary(rel, snapshot.data),
            {"path": rel, "lines": 0, "totalLines": 0, "version": snapshot.version},
        )
    lines = text.removeprefix("\ufeff").split("\n")
    if lines[-1] == "":
        lines.pop()
    total = len(lines)
    start = params.offset or 1
    if total == 0:
        body = "(empty file)"
        shown = 0
    elif start > total:
        raise ToolError(
            ErrorCode.INVALID_INPUT,
            f"offset {start} is past the end of {rel}, which has {total} lines",
        )
    else:
        body, shown = _numbered(lines, start, params.limit or DEFAULT_LIMIT, ctx.output_limit)
    meta = {"path": rel, "lines": shown, "totalLines": total, "version": snapshot.version}
    return ToolOutput(body, meta)


def _numbered(lines: list[str], start: int, limit: int, output_limit: int) -> tuple[str, int]:
    """Numbered lines from ``start``; returns the text and how many lines it holds."""
    end = min(len(lines), start - 1 + limit)
    budget = output_limit - 120  # room for the closing note
    out: list[str] = []
    used = 0
    last = start - 1
    for number in range(start, end + 1):
        line = lines[number - 1].rstrip("\r")
        if len(line) > MAX_LINE_CHARS:
            cut = len(line) - MAX_LINE_CHARS
            line = f"{line[:MAX_LINE_CHARS]} [... {cut:,} more characters on this line cut]"
        entry = f"{number:>6}\t{line}"
        if out and used + len(entry) + 1 > budget:
            break
        out.append(entry)
        used += len(entry) + 1
        last = number
    body = "\n".join(out)
    if last < end:
        body += (
            f"\n[output limit reached: lines {start}-{last} of {len(lines)} shown; "
            f"use offset={last + 1} to read on]"
        )
    elif last < len(lines):
        body += f"\n[lines {start}-{last} of {len(lines)} shown; use offset={last + 1} to read on]"
    return body, last - start + 1


def _decode_text(data: bytes) -> str | None:
    if b"\0" in data[:_BINARY_SNIFF_BYTES]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _describe_binary(rel: str, data: bytes) -> str:
    guess = next((kind for magic, kind in _MAGIC if data.startswith(magic)), None)
    if guess is None and b"\0" not in data[:_BINARY_SNIFF_BYTES]:
        guess = "text in an encoding other than UTF-8, or binary data"
    if guess is None:
        guess = mimetypes.guess_type(rel)[0] or "unknown"
    return f"[binary file, {len(data):,} bytes, type guess: {guess}; not shown]"


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
