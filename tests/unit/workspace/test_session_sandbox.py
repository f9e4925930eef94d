"""One sandbox per session: a session's commands, background or not, share one loopback
network and one /tmp; other sessions and the host see neither; it ends with its session
(and at once when agentls cannot wait), is started again after a crash, and where it
cannot run each command gets a sandbox of its own."""

from __future__ import annotations

import asyncio
import os
import secrets
from pathlib import Path

import pytest

from agentls.workspace import sandbox, session_sandbox
from agentls.workspace.interface import CommandGrant
from agentls.workspace.local import LocalWorkspace
from agentls.workspace.sandbox import SandboxSettings
from tests.processes import processes_naming

pytestmark = pytest.mark.skipif(
    sandbox.bwrap_problem() is not None and not os.environ.get("CI"),
    reason=f"no sandbox here: {sandbox.bwrap_problem()}",
)

# Serves one connection on a loopback port, writing the port to a file first.
SERVE = (
    "python3 -c \"import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1); "
    "open('port', 'w').write(str(s.getsockname()[1])); c, _ = s.accept(); "
    "c.sendall(b'hello from the server'); c.close()\""
)
FETCH = (
    "python3 -c \"import socket; c = socket.create_connection(('127.0.0.1', int(open('port')"
    '.read()))); print(c.recv(100).decode())"'
)


def grant(command: str) -> CommandGrant:
    return CommandGrant(command, command)


async def run(ws: LocalWorkspace, command: str) -> str:
    result = await ws.run_command(grant(command), 30, 20_000)
    return f"{result.output}[exit {result.exit_code}]"


async def wait_for(path: Path) -> None:
    while not path.exists():  # written by the command under test
        await asyncio.sleep(0.01)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / f"project-{secrets.token_hex(4)}"
    root.mkdir()
    return root


async def test_a_later_command_reaches_a_server_an_earlier_one_started(project: Path) -> None:
    ws = LocalWorkspace(project)
    started = await ws.start_command(grant(SERVE), 0)
    assert started.process.sandbox == "session"
    await asyncio.wait_for(wait_for(project / "port"), 30)
    assert await run(ws, FETCH) == "hello from the server\n[exit 0]"
    await ws.end_commands()


async def test_the_session_shares_its_tmp_and_nothing_of_it_reaches_the_host(
    project: Path,
) -> None:
    ws = LocalWorkspace(project)
    name = f"/tmp/agentls-shared-{secrets.token_hex(4)}"
    assert await run(ws, f"echo kept > {name}") == "[exit 0]"
    assert await run(ws, f"cat {name}") == "kept\n[exit 0]"
    assert not Path(name).exists()
    await ws.end_commands()


async def test_sessions_are_apart(project: Path, tmp_path: Path) -> None:
    other_root = tmp_path / "other"
    other_root.mkdir()
    (other_root / "port").write_text("0")
    one, other = LocalWorkspace(project), LocalWorkspace(other_root)
    name = f"/tmp/agentls-apart-{secrets.token_hex(4)}"
    await run(one, f"echo one > {name}")
    assert "No such file" in await run(other, f"cat {name}")
    await one.start_command(grant(SERVE), 0)
    await asyncio.wait_for(wait_for(project / "port"), 30)
    (other_root / "port").write_text((project / "port").read_text())
    assert "Connection refused" in await run(other, FETCH)  # that port is in the other one
    await one.end_commands()
    await other.end_commands()


async def test_a_stop_gives_the_command_its_sigterm_inside_the_sandbox(project: Path) -> None:
    ws = LocalWorkspace(project)
    trap = "trap 'echo term > got-term; exit 0' TERM; echo up > up; while :; do sleep 0.1; done"
    await ws.start_command(grant(trap), 0)
    await asyncio.wait_for(wait_for(project / "up"), 30)
    read = await ws.processes.stop("p1", "model")
    assert (project / "got-term").read_text() == "term\n"  # its handler ran: not a KILL
    assert read.process.state == "stopped"
    await ws.end_commands()


async def test_the_end_of_the_session_leaves_no_process(project: Path) -> None:
    ws = LocalWorkspace(project)
    await ws.start_command(grant("sleep 1000 & sleep 1001"), 0)
    assert processes_naming(str(project))  # the sandbox and its commands name the workspace
    stopped = await ws.end_commands()
    assert [p.id for p in stopped] == ["p1"]
    assert processes_naming(str(project)) == []


async def test_killed_at_once_it_leaves_no_process(project: Path) -> None:
    ws = LocalWorkspace(project)
    await ws.start_command(grant("sleep 1000"), 0)
    ws.kill_commands()
    deadline = asyncio.get_running_loop().time() + 30
    while processes_naming(str(project)) and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.02)  # the kernel takes the namespace's processes down
    assert processes_naming(str(project)) == []


async def test_a_crashed_sandbox_is_started_again_for_the_next_command(project: Path) -> None:
    ws = LocalWorkspace(project)
    await run(ws, "echo first > /tmp/mark")
    ws.processes.sandbox.kill()  # the holder gone (as if it crashed)
    # The next command gets a new sandbox: a fresh /tmp.
    assert "No such file" in await run(ws, "cat /tmp/mark")
    await ws.end_commands()


async def test_where_the_session_sandbox_cannot_run_each_command_has_its_own(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = sandbox.launcher
    monkeypatch.setattr(
        session_sandbox.sandbox, "launcher", lambda n, r: None if n == "nsenter" else real(n, r)
    )
    ws = LocalWorkspace(project)
    started = await ws.start_command(grant("echo alone"), 1)
    assert started.process.sandbox == "own" and "alone" in started.output
    assert ws.processes.sandbox.problem == "nsenter (util-linux) is not on PATH"
    await run(ws, "echo one > /tmp/mark")
    assert "No such file" in await run(ws, "cat /tmp/mark")  # no /tmp shared


async def test_a_change_of_shape_gets_a_new_sandbox_and_the_old_one_goes(
    project: Path, tmp_path: Path
) -> None:
    ws = LocalWorkspace(project)
    await run(ws, "echo first > /tmp/mark")
    extra = tmp_path / "extra"
    extra.mkdir()
    ws.use_sandbox(SandboxSettings(writable=(str(extra),)))
    assert await run(ws, f"echo x > {extra}/written && cat /tmp/mark") == (
        "cat: /tmp/mark: No such file or directory\n[exit 1]"
    )
    assert (extra / "written").read_text() == "x\n"
    await ws.end_commands()
    left = processes_naming(str(project))
    assert left == [], [Path(f"/proc/{p}/cmdline").read_bytes() for p in left]


async def test_with_the_sandbox_off_commands_run_as_they_are_in_their_own_group(
    project: Path,
) -> None:
    ws = LocalWorkspace(project, sandbox=SandboxSettings(enabled=False))
    marker = f"{secrets.randbelow(10**6) + 10**6}.5"  # sleep seconds no other process uses
    started = await ws.start_command(grant(f"echo plain; sleep {marker} & sleep {marker}"), 1)
    assert started.process.sandbox == "none" and started.output == "plain\n"
    assert len(processes_naming(f"sleep {marker}")) >= 2
    read = await ws.processes.stop("p1", "model")
    assert read.process.state == "stopped"
    assert processes_naming(f"sleep {marker}") == []  # the whole group went


async def test_a_sandbox_no_command_can_join_is_given_up_for_a_sandbox_each(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kernel that refuses to let a process enter the holder's namespaces: found when
    the holder starts, never at each command."""
    refusing = tmp_path / "nsenter"
    refusing.write_text(
        "#!/bin/sh\necho 'nsenter: reassociate: Operation not permitted' >&2\nexit 1\n"
    )
    refusing.chmod(0o755)
    real = sandbox.launcher
    monkeypatch.setattr(
        session_sandbox.sandbox,
        "launcher",
        lambda n, r: str(refusing) if n == "nsenter" else real(n, r),
    )
    ws = LocalWorkspace(project)
    assert await run(ws, "echo still runs") == "still runs\n[exit 0]"
    problem = ws.processes.sandbox.problem or ""
    assert "no command can join the session's sandbox" in problem
    assert "Operation not permitted" in problem
    await ws.end_commands()
    assert processes_naming(str(project)) == []  # the holder it started is gone
