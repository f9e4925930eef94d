"""Which reads a turn looks at again: what moved and what is open in the editor, never
every file read (a long session reads hundreds)."""

from __future__ import annotations

from pathlib import Path

from agentls.conversation.outside_changes import OutsideChanges
from agentls.workspace.interface import ReadVersions, ToolContext
from agentls.workspace.local import LocalWorkspace


class CountingWorkspace(LocalWorkspace):
    """Versions asked for, and buffers whose version the editor moved on."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.asked: list[str] = []
        self.buffers: dict[str, str] = {}

    async def version(self, rel: str) -> str | None:
        self.asked.append(rel)
        if rel in self.buffers:
            return self.buffers[rel]
        return await super().version(rel)


def test_read_versions_know_which_came_from_open_buffers() -> None:
    reads = ReadVersions()
    reads["a.py"] = "buffer:3"
    reads["b.py"] = "sha:1"
    reads.update({"c.py": "buffer:1"})
    assert reads.buffered == {"a.py", "c.py"}
    reads["a.py"] = "sha:2"  # read again from disk once the buffer closed
    reads.pop("c.py")
    assert reads.buffered == set()
    reads.setdefault("d.py", "buffer:9")
    del reads["b.py"]
    assert reads.buffered == {"d.py"} and dict(reads) == {"a.py": "sha:2", "d.py": "buffer:9"}


async def test_a_turn_looks_only_at_moved_files_and_open_buffers(tmp_path: Path) -> None:
    workspace = CountingWorkspace(tmp_path)
    for name in ("quiet.py", "moved.py", "open.py"):
        (tmp_path / name).write_text("x = 1\n")
    context = ToolContext(workspace)
    for name in ("quiet.py", "moved.py"):
        context.reads[name] = str(await workspace.version(name))
    context.reads["open.py"] = "buffer:1"
    workspace.buffers["open.py"] = "buffer:2"  # the person typed in it
    (tmp_path / "moved.py").write_text("x = 2\n")
    changes = OutsideChanges(tmp_path)
    changes.moved = {"moved.py", "never-read.py"}
    workspace.asked.clear()

    notes = await changes.notes(context)

    assert sorted(workspace.asked) == ["moved.py", "open.py"]
    assert len(notes) == 1 and "moved.py, open.py" in notes[0]
    workspace.asked.clear()
    assert await changes.notes(context, ran_commands=True) == []  # told once per change
    assert sorted(workspace.asked) == ["moved.py", "open.py", "quiet.py"]
