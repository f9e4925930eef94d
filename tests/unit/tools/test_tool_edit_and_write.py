"""edit_file and write_file through a LocalWorkspace (and one that rejects or reformats)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.tools.edit_file import EDIT_FILE, EditFileInput
from agentls.tools.read_file import READ_FILE, ReadFileInput
from agentls.tools.write_file import WRITE_FILE, WriteFileInput
from agentls.workspace.interface import ToolContext, WriteOutcome
from agentls.workspace.local import LocalWorkspace


class ReviewingWorkspace(LocalWorkspace):
    """Stands in for an editor: the person rejects, or a formatter changes what lands."""

    def __init__(self, root: Path, *, reject: str | None = None, reformat: bool = False) -> None:
        super().__init__(root)
        self.reject = reject
        self.reformat = reformat

    async def write(
        self, path: str, new_text: str, *, expected_version: str | None, create: bool
    ) -> WriteOutcome:
        if self.reject is not None:
            return WriteOutcome(applied=False, message=self.reject)
        landed = new_text.replace("'", '"') if self.reformat else new_text
        outcome = await super().write(
            path, landed, expected_version=expected_version, create=create
        )
        return WriteOutcome(
            True, landed=landed if landed != new_text else None, version=outcome.version
        )


async def edit(ctx: ToolContext, **fields: object) -> tuple[str, dict[str, object]]:
    params = EditFileInput.model_validate(fields)
    assert EDIT_FILE.validate is not None
    EDIT_FILE.validate(params, ctx)
    output = await EDIT_FILE.run(params, ctx)
    return output.text, output.meta


async def write(ctx: ToolContext, **fields: object) -> tuple[str, dict[str, object]]:
    params = WriteFileInput.model_validate(fields)
    assert WRITE_FILE.validate is not None
    WRITE_FILE.validate(params, ctx)
    output = await WRITE_FILE.run(params, ctx)
    return output.text, output.meta


async def read(ctx: ToolContext, path: str) -> None:
    await READ_FILE.run(ReadFileInput(path=path), ctx)


@pytest.fixture
def module(root: Path) -> Path:
    (root / "m.py").write_text("def f():\n    x = 1\n    return x\n\n\ndef g():\n    x = 1\n")
    return root / "m.py"


async def test_edit_replaces_exactly_once(module: Path, ctx: ToolContext) -> None:
    await read(ctx, "m.py")
    text, meta = await edit(ctx, path="m.py", old_text="def g():", new_text="def g(y):\n    pass")
    assert (
        module.read_text()
        == "def f():\n    x = 1\n    return x\n\n\ndef g(y):\n    pass\n    x = 1\n"
    )
    assert text == "Edited m.py: replaced 1 occurrence; new text at lines 6-7."
    assert meta == {"path": "m.py", "replacements": 1, "linesChanged": 2}


async def test_consecutive_edits_after_one_read(module: Path, ctx: ToolContext) -> None:
    await read(ctx, "m.py")
    await edit(ctx, path="m.py", old_text="return x", new_text="return x + 1")
    await edit(ctx, path="m.py", old_text="def f()", new_text="def f0()")
    assert module.read_text().startswith("def f0():\n    x = 1\n    return x + 1\n")
    assert ctx.reads["m.py"] == await ctx.workspace.version("m.py")


async def test_several_matches_name_count_and_lines(module: Path, ctx: ToolContext) -> None:
    before = module.read_text()
    with pytest.raises(ToolError) as caught:
        await edit(ctx, path="m.py", old_text="    x = 1", new_text="    x = 2")
    assert caught.value.code is ErrorCode.INVALID_INPUT and caught.value.retryable
    assert "occurs 2 times in m.py (at lines 2, 7)" in str(caught.value)
    assert module.read_text() == before


async def test_replace_all(module: Path, ctx: ToolContext) -> None:
    text, meta = await edit(ctx, path="m.py", old_text="x = 1", new_text="x = 2", replace_all=True)
    assert module.read_text().count("x = 2") == 2
    assert text == "Edited m.py: replaced 2 occurrences; new text at lines 2, 7."
    assert meta["replacements"] == 2


async def test_no_match_says_so_and_hints_at_whitespace(module: Path, ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as caught:
        await edit(ctx, path="m.py", old_text="return y", new_text="return z")
    assert caught.value.code is ErrorCode.NOT_FOUND and caught.value.retryable
    assert "old_text was not found in m.py" in str(caught.value)
    assert "whitespace" not in str(caught.value)
    with pytest.raises(ToolError) as spaced:
        await edit(ctx, path="m.py", old_text="def f():\n  x = 1", new_text="def f():\n  x = 3")
    assert "does match when whitespace is ignored" in str(spaced.value)


async def test_same_text_is_invalid(module: Path, ctx: ToolContext) -> None:
    with pytest.raises(ToolError) as caught:
        await edit(ctx, path="m.py", old_text="x", new_text="x")
    assert caught.value.code is ErrorCode.INVALID_INPUT


async def test_stale_read_is_a_conflict(module: Path, ctx: ToolContext) -> None:
    await read(ctx, "m.py")
    module.write_text(module.read_text() + "# changed by someone else, longer now\n")
    with pytest.raises(ToolError) as caught:
        await edit(ctx, path="m.py", old_text="def f", new_text="def h")
    assert caught.value.code is ErrorCode.CONFLICT and caught.value.retryable
    assert "changed since you last read it" in str(caught.value)
    assert "def f" in module.read_text()


async def test_crlf_files_are_edited_with_plain_newlines(root: Path, ctx: ToolContext) -> None:
    (root / "w.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    await edit(ctx, path="w.txt", old_text="one\ntwo", new_text="1\n2")
    assert (root / "w.txt").read_bytes() == b"1\r\n2\r\nthree\r\n"


async def test_rejected_edit_writes_nothing(module: Path) -> None:
    ctx = ToolContext(workspace=ReviewingWorkspace(module.parent, reject="not like this"))
    before = module.read_text()
    with pytest.raises(ToolError) as caught:
        await edit(ctx, path="m.py", old_text="def g", new_text="def h")
    assert caught.value.code is ErrorCode.PERMISSION_DENIED and not caught.value.retryable
    assert str(caught.value) == (
        "the edit was rejected by the user: not like this; nothing was written"
    )
    assert module.read_text() == before


async def test_model_hears_what_actually_landed(module: Path) -> None:
    ctx = ToolContext(workspace=ReviewingWorkspace(module.parent, reformat=True))
    text, _ = await edit(ctx, path="m.py", old_text="return x", new_text="return 'x'")
    assert "What landed differs" in text
    assert "-    return 'x'" in text and '+    return "x"' in text
    assert ctx.reads["m.py"] == await ctx.workspace.version("m.py")


async def test_edit_detail_is_a_unified_diff(module: Path, ctx: ToolContext) -> None:
    assert EDIT_FILE.detail is not None
    params = EditFileInput(path="m.py", old_text="def g():", new_text="def g(y):")
    diff = await EDIT_FILE.detail(params, ctx)
    assert diff.startswith("--- a/m.py\n+++ b/m.py\n@@")
    assert "\n-def g():\n+def g(y):\n" in diff


@pytest.mark.parametrize("path", ["../outside/secret.txt", "link.txt", "OUTSIDE_ABS"])
async def test_edit_and_write_refuse_escapes(
    root: Path, outside: Path, ctx: ToolContext, path: str
) -> None:
    os.symlink(outside / "secret.txt", root / "link.txt")
    path = str(outside / "secret.txt") if path == "OUTSIDE_ABS" else path
    for attempt in (
        edit(ctx, path=path, old_text="top", new_text="bottom"),
        write(ctx, path=path, content="pwned"),
    ):
        with pytest.raises(ToolError) as caught:
            await attempt
        assert caught.value.code is ErrorCode.PERMISSION_DENIED
    assert (outside / "secret.txt").read_text() == "top secret\n"


async def test_write_creates_a_file_and_its_folders(root: Path, ctx: ToolContext) -> None:
    text, meta = await write(ctx, path="pkg/sub/new.py", content="a = 1\nb = 2\n")
    assert (root / "pkg" / "sub" / "new.py").read_text() == "a = 1\nb = 2\n"
    assert text == "Created pkg/sub/new.py (2 lines, 12 bytes)."
    assert meta == {"path": "pkg/sub/new.py", "created": True, "bytes": 12}
    assert ctx.reads["pkg/sub/new.py"] == await ctx.workspace.version("pkg/sub/new.py")


async def test_write_overwrites_and_checks_staleness(module: Path, ctx: ToolContext) -> None:
    await read(ctx, "m.py")
    text, meta = await write(ctx, path="m.py", content="pass\n")
    assert module.read_text() == "pass\n"
    assert meta["created"] is False and text.startswith("Overwrote m.py")
    module.write_text("changed by someone else\n")
    with pytest.raises(ToolError) as caught:
        await write(ctx, path="m.py", content="mine\n")
    assert caught.value.code is ErrorCode.CONFLICT
    assert module.read_text() == "changed by someone else\n"


async def test_rejected_write_writes_nothing(root: Path) -> None:
    ctx = ToolContext(workspace=ReviewingWorkspace(root, reject="no"))
    with pytest.raises(ToolError) as caught:
        await write(ctx, path="new.txt", content="x")
    assert caught.value.code is ErrorCode.PERMISSION_DENIED
    assert not (root / "new.txt").exists()


async def test_write_detail_diffs_against_the_current_file(module: Path, ctx: ToolContext) -> None:
    assert WRITE_FILE.detail is not None
    diff = await WRITE_FILE.detail(WriteFileInput(path="m.py", content="pass\n"), ctx)
    assert "-def f():" in diff and "+pass" in diff
    diff = await WRITE_FILE.detail(WriteFileInput(path="fresh.txt", content="hi"), ctx)
    assert diff.endswith("+hi\n\\ No newline at end of file\n")
