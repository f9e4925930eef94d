"""run_command under bubblewrap: the workspace writable, the rest read-only, no network."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentls.workspace import sandbox
from agentls.workspace.interface import CommandGrant
from agentls.workspace.local import LocalWorkspace
from agentls.workspace.sandbox import SandboxSettings

# CI installs bubblewrap: there a missing sandbox is a failure, not a skip.
needs_bwrap = pytest.mark.skipif(
    sandbox.bwrap_problem() is not None and not os.environ.get("CI"),
    reason=f"no sandbox here: {sandbox.bwrap_problem()}",
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


async def run(workspace: LocalWorkspace, command: str) -> str:
    result = await workspace.run_command(CommandGrant(command, command), 30, 20_000)
    return f"{result.output}[exit {result.exit_code}]"


@needs_bwrap
async def test_the_workspace_is_writable_and_nothing_else(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    workspace = LocalWorkspace(project)
    out = await run(workspace, f"echo in > inside.txt && echo out > {outside}; echo done")
    assert (project / "inside.txt").read_text() == "in\n"
    assert not outside.exists()  # /tmp in the sandbox is its own, thrown away after
    out = await run(workspace, "touch /usr/agentls-probe")
    assert "Read-only file system" in out and not Path("/usr/agentls-probe").exists()
    out = await run(workspace, f"touch {Path.home()}/agentls-probe")
    assert not (Path.home() / "agentls-probe").exists()


@needs_bwrap
async def test_reading_outside_still_works(project: Path) -> None:
    out = await run(LocalWorkspace(project), "head -c 4 /etc/os-release >/dev/null && echo read")
    assert "read" in out


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP server on loopback that answers one line to whoever connects."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(10)

    def serve() -> None:
        try:
            while True:
                conn, _ = server.accept()
                conn.sendall(b"hello from the host\n")
                conn.close()
        except OSError:
            return

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    server.close()


CONNECT = (
    "python3 -c \"import socket; s = socket.create_connection(('127.0.0.1', {port}), 3); "
    'print(s.recv(100).decode())"'
)


@needs_bwrap
async def test_no_network_unless_allowed(project: Path, listener: int) -> None:
    blocked = await run(LocalWorkspace(project), CONNECT.format(port=listener))
    assert "hello from the host" not in blocked and "[exit 0]" not in blocked
    allowed = LocalWorkspace(project, sandbox=SandboxSettings(network=True))
    assert "hello from the host" in await run(allowed, CONNECT.format(port=listener))


async def test_turned_off_the_command_runs_as_it_is(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "written-unsandboxed.txt"
    workspace = LocalWorkspace(project, sandbox=SandboxSettings(enabled=False))
    out = await run(workspace, f"echo x > {outside} && echo ok")
    assert "ok" in out and outside.exists()
    assert "without a sandbox" not in out  # the person chose this: no nagging


async def test_without_bwrap_the_person_is_told_once(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox, "bwrap_problem", lambda: "bubblewrap (bwrap) is not installed")
    workspace = LocalWorkspace(project)
    first = await run(workspace, "echo one")
    second = await run(workspace, "echo two")
    assert "without a sandbox (bubblewrap (bwrap) is not installed)" in first
    assert "sandbox" not in second
