"""Snapshots that look only where something changed still record what a full look would,
and turns pay only for what they can change."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

from agentls.checkpoints.gitstore import REF_PREFIX, GitStore
from agentls.contracts.tooling import ToolIntent
from agentls.conversation.checkpointing import (
    Checkpointer,
    CheckpointSettings,
    checkpoint_events,
)
from agentls.conversation.open_sessions import ConversationManager
from agentls.conversation.settings import load_settings
from agentls.permissions.approvers import AutoApprover
from agentls.providers.scripted import ScriptedProvider
from agentls.runtime.registry import ToolRegistry
from agentls.session import events as ev
from agentls.session.log import SessionLog
from agentls.session.store import SessionStore
from agentls.tools import BUILTIN_TOOLS
from agentls.workspace.interface import ToolContext
from agentls.workspace.local import LocalWorkspace
from tests.helpers import until


async def tree_of(store: GitStore, commit: str) -> str:
    return (await store.git("ls-tree", "-r", commit)).decode()


async def test_a_snapshot_told_what_changed_equals_a_full_look(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / ".gitignore").write_text("*.log\n")
    for name in ("a.py", "b.py", "pkg/c.py", "pkg/d.py", "tool.sh"):
        (root / name).write_text(f"{name}\n")
    store = GitStore(tmp_path / "state", root)
    await store.snapshot("s/1/before")

    (root / "a.py").write_text("changed\n")
    (root / "b.py").unlink()
    (root / "new.py").write_text("new\n")
    (root / "noise.log").write_text("ignored\n")
    (root / "made" / "deep").mkdir(parents=True)
    (root / "made" / "deep" / "e.py").write_text("e\n")
    (root / "tool.sh").chmod(0o755)
    (root / "pkg" / "d.py").unlink()
    (root / "pkg" / "d.py").mkdir()  # a file became a folder
    (root / "pkg" / "d.py" / "inner.py").write_text("inner\n")
    os.symlink("a.py", root / "link.py")
    told = {"a.py", "b.py", "new.py", "noise.log", "made", "tool.sh", "pkg/d.py", "link.py",
            "never-existed.py"}  # fmt: skip
    quick = await store.snapshot("s/1/after", changed=told)

    other = GitStore(tmp_path / "other-state", root)
    full = await other.snapshot("s/1/after")
    assert await tree_of(store, quick) == await tree_of(other, full)
    assert "noise.log" not in await tree_of(store, quick)
    assert await store.unchanged({"a.py", "new.py", "pkg/c.py"}) == {"a.py", "new.py", "pkg/c.py"}
    (root / "a.py").write_text("again\n")
    assert await store.unchanged({"a.py", "pkg/c.py"}) == {"pkg/c.py"}


def intent(name: str, **params: Any) -> ToolIntent:
    return ToolIntent(call_id=f"c-{name}-{len(params)}", name=name, input=params)


async def test_turns_pay_for_what_they_can_change(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    for name in ("a.py", "b.py", "mine.txt"):
        (root / name).write_text(f"{name}\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    state = tmp_path / "state"
    session_id, log = SessionStore(state).create(root, "scripted:test")
    workspace = LocalWorkspace(root)
    context = ToolContext(workspace)
    store = GitStore(state, root)
    checkpointer = Checkpointer(
        session_id=session_id,
        store=store,
        session_log=log,
        workspace=workspace,
        registry=ToolRegistry(BUILTIN_TOOLS),
        context=context,
        settings=CheckpointSettings(),
    )

    async def edit(turn: int, path: str, text: str) -> None:
        await checkpointer.before_act("r", turn, [intent("edit_file", path=path,
                                                         old_text="x", new_text="y")])  # fmt: skip
        version = await workspace.version(path)
        await workspace.write(path, text, expected_version=version, create=False)
        context.reads[path] = await workspace.version(path) or ""
        await checkpointer.after_act("r", turn)

    try:
        await checkpointer.before_act("r", 1, [intent("read_file", path="a.py")])
        await checkpointer.after_act("r", 1)
        assert not store.git_dir.exists()  # reads only: no snapshot at all

        # The first turn that may write starts the file watcher; once it has reported,
        # snapshots look only where something moved.
        await edit(2, "a.py", "A = 2\n")
        await until(lambda: "a.py" in checkpointer.outside.pending())
        await edit(3, "b.py", "B = 3\n")
        await until(lambda: "b.py" in checkpointer.outside.pending())
        refs = len((await store.git("for-each-ref", REF_PREFIX)).splitlines())
        await edit(4, "b.py", "B = 4\n")
        first, second = checkpoint_events(log.path)[-2:]
        assert len((await store.git("for-each-ref", REF_PREFIX)).splitlines()) == refs + 1
        assert second.before == first.after  # nothing moved between: no new look
        assert [c.path for c in second.changed] == ["b.py"]

        # The person's change between turns lands before the next turn, not in it.
        (root / "mine.txt").write_text("the person's edit\n")
        await until(lambda: "mine.txt" in checkpointer.outside.pending())
        await edit(5, "a.py", "A = 5\n")
        third = checkpoint_events(log.path)[-1]
        assert [c.path for c in third.changed] == ["a.py"]
        assert await store.read(third.before, "mine.txt") == b"the person's edit\n"

        # A command may change anything: what it made is found without being named.
        await checkpointer.before_act("r", 6, [intent("run_command", command="make")])
        (root / "made.txt").write_text("by a command\n")
        await checkpointer.after_act("r", 6)
        fourth = checkpoint_events(log.path)[-1]
        assert [c.path for c in fourth.changed] == ["made.txt"]
    finally:
        await checkpointer.close()
        log.close()


async def test_changes_seen_while_snapshotting_are_what_git_finds(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    for name in ("a.py", "b.py", "c.sh", "d.py"):
        (root / name).write_text(f"{name}\n")
    os.symlink("a.py", root / "link")
    store = GitStore(tmp_path / "state", root)
    first = await store.snapshot("s/1/before")
    (root / "a.py").write_text("changed\n")
    (root / "b.py").unlink()
    (root / "c.sh").chmod(0o755)
    (root / "link").unlink()
    (root / "link").write_text("now a file\n")
    second = await store.snapshot("s/1/after", changed={"a.py", "b.py", "c.sh", "d.py", "link"})
    out = await store.git("diff-tree", "-r", "--no-renames", "--name-status", first, second)
    by_git = sorted(tuple(line.split("\t")[::-1]) for line in out.decode().splitlines())
    assert (first, second) in store._diffs  # seen while snapshotting, no diff-tree needed
    ours = await store.changes(first, second)
    assert sorted((c.path, c.status) for c in ours) == by_git
    assert by_git == [("a.py", "M"), ("b.py", "D"), ("c.sh", "M"), ("link", "T")]


async def test_a_checkpoint_another_process_left_open_is_closed_by_the_next_run(
    tmp_path: Path,
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    writes = [
        [{"toolCalls": [{"id": f"c{n}", "name": "write_file",
                         "input": {"path": f"new{n}.py", "content": f"N = {n}\n"}}]},
         {"text": "written"}]
        for n in (1, 2)
    ]  # fmt: skip
    provider = ScriptedProvider([*writes[0], *writes[1]])
    manager = ConversationManager(
        SessionStore(tmp_path / "state"), provider_factory=lambda settings: provider
    )
    settings = load_settings({"model": "scripted:test", "mode": "bypass"})
    conversation = manager.open(LocalWorkspace(root), settings)
    try:
        await conversation.ask("first", approver=AutoApprover())
        (first,) = checkpoint_events(conversation.log.path)
        # Another process ran the session next and died in a turn's checkpoint.
        other = SessionLog(conversation.log.path)
        other.append(ev.CheckpointStarted(run="run-other", turn=1, number=2, before=first.after))
        other.close()

        await conversation.ask("second", approver=AutoApprover())
        checkpoints = checkpoint_events(conversation.log.path)
        assert [(c.number, c.interrupted) for c in checkpoints] == [
            (1, False), (2, True), (3, False)
        ]  # fmt: skip
        assert [c.path for c in checkpoints[2].changed] == ["new2.py"]
    finally:
        manager.close()
