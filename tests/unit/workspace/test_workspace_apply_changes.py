"""LocalWorkspace.apply_changes: several files as one, all or nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.workspace import local
from agentls.workspace.language import FileChange
from agentls.workspace.local import LocalWorkspace


async def change(ws: LocalWorkspace, rel: str, new: str) -> FileChange:
    snap = await ws.read(rel)
    return FileChange(rel, snap.data.decode(), new, snap.version)


@pytest.fixture
def ws(tmp_path: Path) -> LocalWorkspace:
    for name in ("a.py", "b.py", "c.py"):
        (tmp_path / name).write_text(f"old = '{name}'\n")
    return LocalWorkspace(tmp_path)


async def test_every_file_changes_and_each_has_its_new_version(ws: LocalWorkspace) -> None:
    changes = [await change(ws, n, f"new = '{n}'\n") for n in ("a.py", "b.py", "c.py")]
    outcome = await ws.apply_changes(changes, "rename old -> new")
    assert outcome.applied and sorted(outcome.files) == ["a.py", "b.py", "c.py"]
    for name in ("a.py", "b.py", "c.py"):
        assert (ws.root / name).read_text() == f"new = '{name}'\n"
        assert outcome.files[name].version == await ws.version(name)


async def test_a_file_that_moved_since_it_was_read_changes_nothing(ws: LocalWorkspace) -> None:
    changes = [await change(ws, n, "new\n") for n in ("a.py", "b.py", "c.py")]
    (ws.root / "c.py").write_text("someone else's text\n")
    with pytest.raises(ToolError) as raised:
        await ws.apply_changes(changes, "rename")
    assert raised.value.code is ErrorCode.CONFLICT and "c.py changed" in str(raised.value)
    assert "nothing was changed" in str(raised.value)
    assert (ws.root / "a.py").read_text() == "old = 'a.py'\n"
    assert (ws.root / "b.py").read_text() == "old = 'b.py'\n"


async def test_a_write_that_fails_puts_back_the_files_already_written(
    ws: LocalWorkspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    changes = [await change(ws, n, "new\n") for n in ("a.py", "b.py", "c.py")]
    replace = local.replace_atomically

    def full_disk(target: Path, data: bytes, **how: Any) -> None:
        if target.name == "c.py" and data == b"new\n":
            raise OSError(28, "No space left on device")
        replace(target, data, **how)

    monkeypatch.setattr(local, "replace_atomically", full_disk)
    with pytest.raises(ToolError) as raised:
        await ws.apply_changes(changes, "rename")
    assert "cannot write c.py" in str(raised.value) and "nothing was changed" in str(raised.value)
    for name in ("a.py", "b.py", "c.py"):
        assert (ws.root / name).read_text() == f"old = '{name}'\n"


async def test_a_path_named_twice_or_outside_is_refused_before_anything(
    ws: LocalWorkspace,
) -> None:
    first = await change(ws, "a.py", "new\n")
    with pytest.raises(ToolError, match="named twice"):
        await ws.apply_changes([first, FileChange("./a.py", "", "x\n", first.version)], "r")
    with pytest.raises(ToolError) as raised:
        await ws.apply_changes([first, FileChange("../out.py", "", "x\n", "v")], "r")
    assert raised.value.code is ErrorCode.PERMISSION_DENIED
    with pytest.raises(ToolError, match="no files"):
        await ws.apply_changes([], "r")
    assert (ws.root / "a.py").read_text() == "old = 'a.py'\n"
