"""`replace_atomically`: a reader sees the old file or the new one, never a part, and a
failed write leaves the old file and nothing beside it."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from agentls.workspace import atomic
from agentls.workspace.atomic import replace_atomically
from tests.unit.helpers import reads_while_two_write


def test_the_target_holds_the_old_text_until_the_new_one_is_whole(
    tmp_path: Path, monkeypatch: Any
) -> None:
    target = tmp_path / "notes.md"
    target.write_text("old\n")
    seen: list[tuple[str, str]] = []
    real_replace = os.replace

    def replace(source: str, destination: Path) -> None:
        seen.append((target.read_text(), Path(source).read_text()))
        real_replace(source, destination)

    monkeypatch.setattr(atomic.os, "replace", replace)
    replace_atomically(target, "new " * 10_000)
    assert seen == [("old\n", "new " * 10_000)]
    assert target.read_text() == "new " * 10_000
    assert [p.name for p in tmp_path.iterdir()] == ["notes.md"]


def test_a_failed_write_keeps_the_old_file_and_leaves_nothing_beside_it(
    tmp_path: Path, monkeypatch: Any
) -> None:
    target = tmp_path / "notes.md"
    target.write_text("old\n")

    def replace(source: str, destination: Path) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", replace)
    with pytest.raises(OSError, match="No space"):
        replace_atomically(target, b"new")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["notes.md"]


def test_permissions_private_unless_given_or_kept(tmp_path: Path) -> None:
    replace_atomically(tmp_path / "private", "x")
    replace_atomically(tmp_path / "shared", b"x", mode=0o644)
    assert stat.S_IMODE((tmp_path / "private").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "shared").stat().st_mode) == 0o644
    (tmp_path / "shared").chmod(0o751)
    replace_atomically(tmp_path / "shared", b"y", keep_mode=True)
    assert stat.S_IMODE((tmp_path / "shared").stat().st_mode) == 0o751
    assert (tmp_path / "shared").read_bytes() == b"y"


def test_readers_never_find_it_empty_while_two_writers_race(tmp_path: Path) -> None:
    """What a run's end and agentls.showTranscript did to one transcript at once."""
    target = tmp_path / "transcript.md"
    text = "# transcript\n" + "line\n" * 5_000
    replace_atomically(target, text)
    reads = reads_while_two_write(lambda: replace_atomically(target, text), target.read_text, 300)
    assert all(read == text for read in reads)
