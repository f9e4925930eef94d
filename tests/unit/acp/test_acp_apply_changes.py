"""AcpWorkspace.apply_changes: every diff shown, one permission for all, all or nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentls.acp.permission import Choice
from agentls.acp.workspace import AcpWorkspace, ClientFiles
from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.permissions.policy import PermissionPolicy
from agentls.permissions.rules import Rule
from agentls.workspace.language import FileChange


class Asker:
    def __init__(self, choice: Choice) -> None:
        self.choice = choice
        self.asked: list[tuple[Any, list[Rule]]] = []

    async def ask(self, update: Any, rules: list[Rule]) -> Choice:
        self.asked.append((update, list(rules)))
        return self.choice


class Updates:
    def __init__(self) -> None:
        self.pushed: list[Any] = []

    def push(self, update: Any) -> None:
        self.pushed.append(update)


def workspace(root: Path, choice: Choice) -> tuple[AcpWorkspace, Asker, Updates]:
    for name in ("a.py", "b.py", "c.py"):
        (root / name).write_text(f"old = '{name}'\n")
    asker, updates = Asker(choice), Updates()
    files = ClientFiles(client=None, session_id="s", can_read=False, can_write=False)  # type: ignore[arg-type]
    ws = AcpWorkspace(root, files, updates, asker)  # type: ignore[arg-type]
    ws.session_rules = PermissionPolicy(edits_reviewed_by_workspace=True)  # type: ignore[assignment]
    return ws, asker, updates


async def changes(ws: AcpWorkspace) -> list[FileChange]:
    found = []
    for name in ("a.py", "b.py", "c.py"):
        snap = await ws.read(name)
        found.append(FileChange(name, snap.data.decode(), f"new = '{name}'\n", snap.version))
    return found


async def test_one_permission_shows_every_diff_and_then_every_file_changes(
    tmp_path: Path,
) -> None:
    ws, asker, updates = workspace(tmp_path, Choice.ALLOW_ONCE)
    outcome = await ws.apply_changes(await changes(ws), "rename old -> new in 3 file(s)")
    assert outcome.applied and sorted(outcome.files) == ["a.py", "b.py", "c.py"]
    ((update, rules),) = asker.asked  # one question for the three files
    assert [Path(d.path).name for d in update.content] == ["a.py", "b.py", "c.py"]
    assert sorted(str(r) for r in rules) == ["write_file(a.py)", "write_file(b.py)",
                                             "write_file(c.py)"]  # fmt: skip
    (start,) = updates.pushed  # the diffs on a call of their own, before the question
    assert start.title == "rename old -> new in 3 file(s)" and len(start.content) == 3
    for name in ("a.py", "b.py", "c.py"):
        assert (tmp_path / name).read_text() == f"new = '{name}'\n"


async def test_a_rejection_changes_no_file(tmp_path: Path) -> None:
    ws, _, _ = workspace(tmp_path, Choice.REJECT_ONCE)
    outcome = await ws.apply_changes(await changes(ws), "rename")
    assert not outcome.applied and "rejected" in outcome.message
    for name in ("a.py", "b.py", "c.py"):
        assert (tmp_path / name).read_text() == f"old = '{name}'\n"


async def test_a_file_that_moved_is_a_conflict_before_anything_is_asked(tmp_path: Path) -> None:
    ws, asker, _ = workspace(tmp_path, Choice.ALLOW_ONCE)
    planned = await changes(ws)
    (tmp_path / "b.py").write_text("moved\n")
    with pytest.raises(ToolError) as raised:
        await ws.apply_changes(planned, "rename")
    assert raised.value.code is ErrorCode.CONFLICT and "nothing was changed" in str(raised.value)
    assert asker.asked == [] and (tmp_path / "a.py").read_text() == "old = 'a.py'\n"
