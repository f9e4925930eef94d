"""Control files stay read-only to every command in the session's shared sandbox: each
command, in the foreground or the background, joins the session's namespaces in a bwrap
of its own that binds every control file that exists when it starts read-only again.
Each attack of `test_control_files_sandbox` runs both ways and is judged by the files on
disk; a background process keeps its confinement while a command a person approved
writes control files beside it, and a background run a person approved writes them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentls.workspace.interface import CommandGrant
from agentls.workspace.local import LocalWorkspace
from tests.gate import test_control_files_sandbox as alone
from tests.gate.test_control_files_sandbox import ATTACKS, state, workspace

pytestmark = alone.pytestmark
root = alone.root  # the same repository, control files at every depth


def grant(command: str, *, control_writable: bool = False) -> CommandGrant:
    return CommandGrant(command, command, control_writable)


async def in_background(ws: LocalWorkspace, command: str, **how: bool) -> str:
    """Start ``command`` in the background and read it until it has exited."""
    read = await ws.start_command(grant(command, **how), 0)
    assert read.process.sandbox == "session"
    output = read.output
    while read.process.state == "running":
        read = await ws.processes.read(read.process.id, wait_seconds=30)
        output += read.output
    return f"{output}[exit {read.process.exit_code}]"


def refusals(root: Path) -> int:
    log = root / "tries.log"
    return log.read_text(errors="replace").count("refused") if log.exists() else 0


async def in_foreground(ws: LocalWorkspace, command: str) -> str:
    result = await ws.run_command(grant(command), 30, 20_000)
    return f"{result.output}[exit {result.exit_code}]"


@pytest.mark.parametrize("attack", ATTACKS)
async def test_no_command_in_the_shared_sandbox_writes_a_control_file(
    root: Path, attack: str
) -> None:
    ws = workspace(root)
    before = state(root)
    try:
        out = await in_foreground(ws, attack)
        assert state(root) == before, out
        out = await in_background(ws, attack)
        assert state(root) == before, out
    finally:
        await ws.end_commands()


async def test_a_background_process_stays_confined_while_an_approved_run_writes_beside_it(
    root: Path,
) -> None:
    ws = workspace(root)
    config = (root / ".git/config").read_text()
    # Tries to write .git/config until the approved run is over, and says how it went.
    tries = (
        "while [ ! -e approved-done ]; do echo evil >> .git/config 2>/dev/null "
        "&& echo WROTE >> tries.log || echo refused >> tries.log; sleep 0.05; done"
    )
    try:
        await ws.start_command(grant(tries), 0)
        approved = "echo '# approved' >> .git/config && echo ok > .git/hooks/approved"
        result = await ws.run_command(grant(approved, control_writable=True), 30, 20_000)
        assert result.exit_code == 0, result.output
        seen = refusals(root)
        while refusals(root) <= seen:
            await asyncio.sleep(0.02)  # the background loop has tried again since
        (root / "approved-done").write_text("")
        await ws.processes.read("p1", wait_seconds=30)
    finally:
        await ws.end_commands()
    assert (root / ".git/config").read_text() == config + "# approved\n"
    assert (root / ".git/hooks/approved").read_text() == "ok\n"
    assert "WROTE" not in (root / "tries.log").read_text()


async def test_a_background_run_a_person_approved_writes_them(root: Path) -> None:
    ws = workspace(root)
    before = state(root)
    try:
        out = await in_background(ws, "echo evil > sub/.vscode/tasks.json", control_writable=True)
    finally:
        await ws.end_commands()
    assert out.endswith("[exit 0]"), out
    assert state(root)["sub/.vscode/tasks.json"] == "evil\n" != before["sub/.vscode/tasks.json"]


async def test_what_one_command_leaves_in_home_never_reaches_the_next(root: Path) -> None:
    """A planted ~/.gitconfig (hooks of its own) would run in a later command, one a person
    approved to write control files too: each command gets a HOME of its own."""
    ws = workspace(root)
    plant = "mkdir -p ~/hooks && printf '[core]\\n\\thooksPath = ~/hooks\\n' > ~/.gitconfig"
    try:
        assert (await in_foreground(ws, plant)).endswith("[exit 0]")
        out = await in_foreground(ws, "cat ~/.gitconfig")
        assert "hooksPath" not in out and "No such file" in out
    finally:
        await ws.end_commands()


async def test_a_run_a_person_approved_reads_nothing_left_in_the_sessions_tmp(
    root: Path,
) -> None:
    ws = workspace(root)
    try:
        await in_foreground(ws, "ln -s $PWD/.git/config /tmp/scratch && echo left > /tmp/note")
        assert (await in_foreground(ws, "cat /tmp/note")) == "left\n[exit 0]"  # shared
        approved = "cat /tmp/note; echo evil > /tmp/scratch"
        result = await ws.run_command(grant(approved, control_writable=True), 30, 20_000)
    finally:
        await ws.end_commands()
    assert "left" not in result.output  # a /tmp of its own
    assert "evil" not in (root / ".git/config").read_text()
