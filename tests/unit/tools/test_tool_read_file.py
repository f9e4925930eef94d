"""read_file through a LocalWorkspace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.tools.read_file import READ_FILE, ReadFileInput
from agentls.workspace.interface import ToolContext


async def read(ctx: ToolContext, **fields: object) -> tuple[str, dict[str, object]]:
    params = ReadFileInput.model_validate(fields)
    assert READ_FILE.validate is not None
    READ_FILE.validate(params, ctx)
    output = await READ_FILE.run(params, ctx)
    return output.text, output.meta


async def test_lines_are_numbered_and_the_read_is_recorded(root: Path, ctx: ToolContext) -> None:
    (root / "a.py").write_text("import os\n\ndef f():\n    return 1\n")
    text, meta = await read(ctx, path="a.py")
    assert text == "     1\timport os\n     2\t\n     3\tdef f():\n     4\t    return 1"
    assert meta["totalLines"] == 4 and meta["lines"] == 4 and meta["path"] == "a.py"
    assert ctx.reads["a.py"] == meta["version"] == await ctx.workspace.version("a.py")


async def test_offset_and_limit_with_a_note_to_read_on(root: Path, ctx: ToolContext) -> None:
    ctx.output_limit = 100_000
    (root / "big.txt").write_text("".join(f"line {n}\n" for n in range(1, 5322)))
    text, meta = await read(ctx, path="big.txt")
    assert text.splitlines()[0] == "     1\tline 1"
    assert text.splitlines()[-2] == "  2000\tline 2000"
    assert text.endswith("[lines 1-2000 of 5321 shown; use offset=2001 to read on]")
    text, meta = await read(ctx, path="big.txt", offset=5320, limit=10)
    assert text == "  5320\tline 5320\n  5321\tline 5321"
    assert meta["lines"] == 2


async def test_output_is_bounded_by_the_output_limit(root: Path, ctx: ToolContext) -> None:
    ctx.output_limit = 2000
    (root / "wide.txt").write_text("".join(f"{n:04} " + "x" * 90 + "\n" for n in range(1, 500)))
    text, meta = await read(ctx, path="wide.txt")
    assert len(text) <= 2000
    shown = meta["lines"]
    assert isinstance(shown, int) and 0 < shown < 499
    assert text.endswith(f"use offset={shown + 1} to read on]")
    assert "output limit reached" in text


async def test_long_lines_are_cut_with_a_marker(root: Path, ctx: ToolContext) -> None:
    (root / "min.js").write_text("y" * 5000 + "\n")
    text, _ = await read(ctx, path="min.js")
    assert text == "     1\t" + "y" * 2000 + " [... 3,000 more characters on this line cut]"


async def test_binary_files_are_described(root: Path, ctx: ToolContext) -> None:
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 12337)
    text, meta = await read(ctx, path="logo.png")
    assert text == "[binary file, 12,345 bytes, type guess: PNG image; not shown]"
    assert meta["lines"] == 0
    (root / "latin1.txt").write_bytes("café\n".encode("latin-1"))
    text, _ = await read(ctx, path="latin1.txt")
    assert text == (
        "[binary file, 5 bytes, type guess: text in an encoding other than UTF-8, "
        "or binary data; not shown]"
    )


async def test_empty_file_and_offset_past_the_end(root: Path, ctx: ToolContext) -> None:
    (root / "empty.txt").write_text("")
    assert (await read(ctx, path="empty.txt"))[0] == "(empty file)"
    (root / "two.txt").write_text("a\nb\n")
    with pytest.raises(ToolError) as caught:
        await read(ctx, path="two.txt", offset=3)
    assert caught.value.code is ErrorCode.INVALID_INPUT
    assert "2 lines" in str(caught.value)


async def test_crlf_lines_are_shown_without_carriage_returns(root: Path, ctx: ToolContext) -> None:
    (root / "win.txt").write_bytes(b"one\r\ntwo\r\n")
    assert (await read(ctx, path="win.txt"))[0] == "     1\tone\n     2\ttwo"


async def test_missing_file_and_directory(root: Path, ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as missing:
        await read(ctx, path="nope.py")
    assert missing.value.code is ErrorCode.NOT_FOUND
    assert "nope.py does not exist" in str(missing.value)
    (root / "pkg").mkdir()
    with pytest.raises(ToolError) as folder:
        await read(ctx, path="pkg")
    assert "is a directory" in str(folder.value) and "list_files" in str(folder.value)


@pytest.mark.parametrize("path", ["../outside/secret.txt", "link.txt", "OUTSIDE_ABS"])
async def test_escapes_are_refused_at_validation(
    root: Path, outside: Path, ctx: ToolContext, path: str
) -> None:
    os.symlink(outside / "secret.txt", root / "link.txt")
    params = ReadFileInput(path=str(outside / "secret.txt") if path == "OUTSIDE_ABS" else path)
    assert READ_FILE.validate is not None
    with pytest.raises(ToolError) as caught:
        READ_FILE.validate(params, ctx)
    assert caught.value.code is ErrorCode.PERMISSION_DENIED
    with pytest.raises(ToolError):
        await READ_FILE.run(params, ctx)  # the run refuses too, validated or not
    assert ctx.reads == {}


async def test_validation_normalises_the_path_for_subject_and_summary(
    root: Path, ctx: ToolContext
) -> None:
    params = ReadFileInput(path=str(root / "src" / ".." / "a.py"), offset=10, limit=31)
    assert READ_FILE.validate is not None
    READ_FILE.validate(params, ctx)
    assert READ_FILE.subject(params) == "a.py"
    assert READ_FILE.summary(params) == "read_file a.py:10-40"


def test_schema_forbids_extra_fields_and_describes_every_field() -> None:
    schema = READ_FILE.input_schema()
    assert schema["additionalProperties"] is False
    assert all("description" in field for field in schema["properties"].values())
    with pytest.raises(ValueError):
        ReadFileInput.model_validate({"path": "a", "bogus": 1})


# Reads a 1 GiB sparse file (text lines, a hole, text lines) in a process of its own and
# prints what it saw and the memory the reads took: Python's allocations at their peak
# (tracemalloc) and the growth of the process's peak resident size.
_BIG_FILE_READS = textwrap.dedent("""
    import asyncio, json, resource, sys, tracemalloc
    from pathlib import Path
    from agentls.tools.read_file import READ_FILE, ReadFileInput
    from agentls.workspace.interface import ToolContext
    from agentls.workspace.local import LocalWorkspace

    async def main():
        ctx = ToolContext(workspace=LocalWorkspace(Path(sys.argv[1])))
        async def read(**fields):
            out = await READ_FILE.run(ReadFileInput.model_validate(fields), ctx)
            return {"text": out.text, "meta": out.meta}
        await read(path="small.txt")  # everything loaded once
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        tracemalloc.start()
        head = await read(path="big.txt", limit=5)
        tail = await read(path="big.txt", offset=int(sys.argv[2]), limit=3)
        peak = tracemalloc.get_traced_memory()[1]
        grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
        print(json.dumps({"head": head, "tail": tail, "peak": peak, "grownKiB": grown}))

    asyncio.run(main())
""")


def test_a_1_gib_file_is_read_within_a_few_mib(root: Path) -> None:
    (root / "small.txt").write_text("one\n")
    big = root / "big.txt"
    head_lines = 3000  # past the 8 KiB sniffed for a NUL
    with big.open("wb") as out:
        out.write("".join(f"head {n}\n" for n in range(1, head_lines + 1)).encode())
        out.truncate(1 << 30)  # a hole: one long line of NULs, then the tail
        out.seek(0, os.SEEK_END)
        out.write(b"\ntail 1\ntail 2\ntail 3\n")
    hole_line = head_lines + 1
    done = subprocess.run(
        [sys.executable, "-c", _BIG_FILE_READS, str(root), str(hole_line + 1)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    total = hole_line + 3
    assert seen["head"]["text"] == (
        "\n".join(f"{n:>6}\thead {n}" for n in range(1, 6))
        + f"\n[lines 1-5 of {total:,} shown; use offset=6 to read on]".replace(",", "")
    )
    assert seen["head"]["meta"]["totalLines"] == total
    assert seen["tail"]["text"] == "\n".join(
        f"{n:>6}\ttail {i}" for i, n in enumerate(range(hole_line + 1, total + 1), 1)
    )
    assert seen["tail"]["meta"]["version"] == seen["head"]["meta"]["version"]
    assert seen["peak"] < 64 << 20, f"{seen['peak']:,} bytes allocated at the peak"
    assert seen["grownKiB"] < 64 << 10, f"the peak resident size grew {seen['grownKiB']:,} KiB"
