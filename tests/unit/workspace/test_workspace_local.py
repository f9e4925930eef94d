"""LocalWorkspace: reads, versions and writes on disk, confined to the root."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.workspace.local import LocalWorkspace


async def test_read_returns_bytes_and_a_version(root: Path, ws: LocalWorkspace) -> None:
    (root / "a.txt").write_bytes(b"hello\n")
    snapshot = await ws.read("a.txt")
    assert snapshot.path == "a.txt"
    assert snapshot.data == b"hello\n"
    assert snapshot.version == await ws.version("a.txt")


async def test_version_changes_when_the_file_changes(root: Path, ws: LocalWorkspace) -> None:
    target = root / "a.txt"
    target.write_text("one\n")
    first = await ws.version("a.txt")
    target.write_text("two, longer\n")
    assert await ws.version("a.txt") != first
    assert await ws.version("missing.txt") is None
    assert await ws.version(".") is None


async def test_read_missing_file_and_directory(root: Path, ws: LocalWorkspace) -> None:
    with pytest.raises(ToolError) as missing:
        await ws.read("nope.txt")
    assert missing.value.code is ErrorCode.NOT_FOUND
    assert "does not exist" in str(missing.value)
    (root / "pkg").mkdir()
    with pytest.raises(ToolError) as folder:
        await ws.read("pkg")
    assert folder.value.code is ErrorCode.NOT_FOUND
    assert "is a directory" in str(folder.value)
    assert "list_files" in str(folder.value)


async def test_write_replaces_atomically_and_keeps_the_mode(root: Path, ws: LocalWorkspace) -> None:
    target = root / "run.sh"
    target.write_text("echo old\n")
    target.chmod(0o754)
    version = await ws.version("run.sh")
    outcome = await ws.write("run.sh", "echo new\n", expected_version=version, create=False)
    assert outcome.applied
    assert target.read_text() == "echo new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o754
    assert outcome.version == await ws.version("run.sh")
    assert sorted(p.name for p in root.iterdir()) == ["run.sh"]  # no temp file left


async def test_write_refuses_a_stale_version(root: Path, ws: LocalWorkspace) -> None:
    target = root / "a.txt"
    target.write_text("one\n")
    version = await ws.version("a.txt")
    target.write_text("changed meanwhile\n")
    with pytest.raises(ToolError) as caught:
        await ws.write("a.txt", "mine\n", expected_version=version, create=False)
    assert caught.value.code is ErrorCode.CONFLICT
    assert target.read_text() == "changed meanwhile\n"


async def test_create_makes_parents_and_refuses_existing(root: Path, ws: LocalWorkspace) -> None:
    outcome = await ws.write("deep/er/new.txt", "x\n", expected_version=None, create=True)
    assert outcome.applied
    assert (root / "deep" / "er" / "new.txt").read_text() == "x\n"
    with pytest.raises(ToolError) as caught:
        await ws.write("deep/er/new.txt", "y\n", expected_version=None, create=True)
    assert caught.value.code is ErrorCode.CONFLICT
    assert (root / "deep" / "er" / "new.txt").read_text() == "x\n"


async def test_write_to_a_vanished_file_is_not_found(ws: LocalWorkspace) -> None:
    with pytest.raises(ToolError) as caught:
        await ws.write("gone.txt", "x", expected_version="1:1", create=False)
    assert caught.value.code is ErrorCode.NOT_FOUND
    assert "no longer exists" in str(caught.value)


async def test_write_under_a_file_is_invalid(root: Path, ws: LocalWorkspace) -> None:
    (root / "plain").write_text("")
    with pytest.raises(ToolError) as caught:
        await ws.write("plain/child.txt", "x", expected_version=None, create=True)
    assert caught.value.code is ErrorCode.INVALID_INPUT


async def test_write_through_an_inner_symlink_keeps_the_link(
    root: Path, ws: LocalWorkspace
) -> None:
    (root / "real.txt").write_text("old\n")
    os.symlink("real.txt", root / "alias.txt")
    version = await ws.version("alias.txt")
    await ws.write("alias.txt", "new\n", expected_version=version, create=False)
    assert (root / "alias.txt").is_symlink()
    assert (root / "real.txt").read_text() == "new\n"


async def test_symlink_leading_outside_is_refused_for_every_operation(
    root: Path, outside: Path, ws: LocalWorkspace
) -> None:
    os.symlink(outside / "secret.txt", root / "link.txt")
    os.symlink(outside, root / "linkdir")
    # No file of the workspace is there: no version (the file watcher and undo ask), and
    # nothing read through the link.
    assert await ws.version("link.txt") is None and await ws.version("linkdir/x") is None
    attempts = [
        ws.read("link.txt"),
        ws.write("link.txt", "pwned", expected_version=None, create=False),
        ws.write("linkdir/new.txt", "pwned", expected_version=None, create=True),
        ws.list_files("linkdir", None, 10),
        ws.search("secret", "linkdir", None, 10),
    ]
    for attempt in attempts:
        with pytest.raises(ToolError) as caught:
            await attempt
        assert caught.value.code is ErrorCode.PERMISSION_DENIED
    assert (outside / "secret.txt").read_text() == "top secret\n"
    assert not (outside / "new.txt").exists()


async def test_root_may_be_given_through_a_symlink(root: Path, tmp_path: Path) -> None:
    os.symlink(root, tmp_path / "alias")
    (root / "a.txt").write_text("a\n")
    ws = LocalWorkspace(tmp_path / "alias")
    assert ws.root == root.resolve()
    assert ws.relative(str(tmp_path / "alias" / "a.txt")) == "a.txt"
    assert (await ws.read(str(root / "a.txt"))).data == b"a\n"


def test_root_must_be_a_directory(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        LocalWorkspace(tmp_path / "missing")


async def test_list_and_search_of_a_missing_path(ws: LocalWorkspace) -> None:
    for attempt in (ws.list_files("nope", None, 10), ws.search("x", "nope", None, 10)):
        with pytest.raises(ToolError) as caught:
            await attempt
        assert caught.value.code is ErrorCode.NOT_FOUND


async def test_read_refuses_a_fifo_instead_of_blocking(root: Path, ws: LocalWorkspace) -> None:
    os.mkfifo(root / "pipe")
    with pytest.raises(ToolError) as caught:
        await ws.read("pipe")
    assert caught.value.code is ErrorCode.INVALID_INPUT
