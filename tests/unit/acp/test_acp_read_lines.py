"""AcpWorkspace.read_lines: the client's buffer for an ordinary file, the disk alone (and
its version) for a large one, with the same version every other call gives."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from agentls.acp.workspace import LARGE_FILE_BYTES, AcpWorkspace, ClientFiles
from agentls.workspace.lines import LineWindow

WINDOW = LineWindow(start=1, limit=3, max_chars=10_000, line_chars=100)


class Client:
    def __init__(self, text: str) -> None:
        self.text = text
        self.asked: list[str] = []

    async def read_text_file(self, session_id: str, path: str) -> Any:
        self.asked.append(path)
        return SimpleNamespace(content=self.text)


def workspace(root: Path, client: Client) -> AcpWorkspace:
    files = ClientFiles(client=client, session_id="s", can_read=True, can_write=False)  # type: ignore[arg-type]
    return AcpWorkspace(root, files, updates=None, asker=None)  # type: ignore[arg-type]


async def test_an_ordinary_file_is_the_clients_buffer(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("on disk\n")
    client = Client("unsaved 1\nunsaved 2\n")
    ws = workspace(tmp_path, client)
    part = await ws.read_lines("a.py", WINDOW)
    assert [line.text for line in part.lines] == ["unsaved 1", "unsaved 2"]
    assert part.total_lines == 2 and part.is_text
    assert part.version == (await ws.read("a.py")).version == await ws.version("a.py")
    assert part.version.startswith("sha256:")


async def test_a_large_file_is_read_from_disk_with_the_disks_version(tmp_path: Path) -> None:
    big = tmp_path / "big.log"
    with big.open("wb") as out:
        out.write(b"first\nsecond\n" + b"x" * 10_000 + b"\n")
        out.truncate(LARGE_FILE_BYTES + 1)
    client = Client("the client is not asked for a large file\n")
    ws = workspace(tmp_path, client)
    part = await ws.read_lines("big.log", WINDOW)
    assert [line.text for line in part.lines][:2] == ["first", "second"]
    assert part.lines[2].length == 10_000 and part.size == LARGE_FILE_BYTES + 1
    assert client.asked == []
    assert part.version == await ws.version("big.log") == (await ws.read("big.log")).version
    assert not part.version.startswith("sha256:")
