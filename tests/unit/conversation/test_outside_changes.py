"""The file watcher: the sessions of one folder share one watcher thread, and each hears
every change while it listens."""

from __future__ import annotations

import threading
from pathlib import Path

from agentls.conversation.outside_changes import OutsideChanges
from tests.helpers import until


def watcher_threads() -> set[int]:
    return {t.ident or 0 for t in threading.enumerate() if t.name == "agentls-watch"}


async def test_sessions_of_one_folder_share_one_watcher(tmp_path: Path) -> None:
    before = watcher_threads()
    first, second = OutsideChanges(tmp_path), OutsideChanges(tmp_path)
    first.start()
    second.start()
    try:
        assert len(watcher_threads() - before) == 1
        await until(lambda: first.armed and second.armed)
        (tmp_path / "a.txt").write_text("one\n")
        await until(lambda: "a.txt" in first.pending() and "a.txt" in second.pending())
        # One session leaving does not stop the other's watching.
        await first.close()
        assert second.armed
        (tmp_path / "b.txt").write_text("two\n")
        await until(lambda: "b.txt" in second.pending())
        assert "b.txt" not in first.pending()
    finally:
        await first.close()
        await second.close()
    await until(lambda: not watcher_threads() - before)  # the last one out stops it


async def test_a_session_listening_again_gets_a_watcher(tmp_path: Path) -> None:
    changes = OutsideChanges(tmp_path)
    changes.start()
    await until(lambda: changes.armed)
    await changes.close()
    assert not changes.armed
    changes.start()
    try:
        await until(lambda: changes.armed)
        (tmp_path / "c.txt").write_text("three\n")
        await until(lambda: "c.txt" in changes.pending())
    finally:
        await changes.close()
