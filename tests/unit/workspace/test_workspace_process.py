"""run_shell: exit codes, bounded output, and no process outliving a timeout or a cancel."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from agentls.workspace import process
from agentls.workspace.process import OutputCapture, run_shell

# Two background sleeps, one of them a grandchild, their pids written to a file.
SPAWN_CHILDREN = (
    "sleep 1000 & echo $! >> pids; "
    "bash -c 'sleep 1000 & echo $! >> pids; wait' & "
    "while [ $(wc -l < pids) -lt 2 ]; do sleep 0.01; done; "
)


async def wait_for_pids(path: Path, count: int) -> list[int]:
    deadline = asyncio.get_running_loop().time() + 10
    while asyncio.get_running_loop().time() < deadline:
        if path.exists():
            pids = [int(line) for line in path.read_text().split()]
            if len(pids) >= count:
                return pids
        await asyncio.sleep(0.01)
    raise AssertionError(f"{path} never listed {count} pids")


async def wait_until_gone(pids: list[int], alive: Callable[[int], bool]) -> list[int]:
    """Pids still running after a generous deadline (empty when all went)."""
    deadline = asyncio.get_running_loop().time() + 10
    while any(alive(pid) for pid in pids) and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.01)
    return [pid for pid in pids if alive(pid)]


async def test_exit_code_and_merged_output(root: Path) -> None:
    result = await run_shell("echo out; echo err >&2; exit 3", root, 10, 1000)
    assert result.exit_code == 3
    assert result.output == "out\nerr\n"
    assert not result.timed_out
    assert result.truncated_bytes == 0


async def test_exit_is_seen_where_there_is_no_pidfd(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_pidfd(pid: int) -> int:
        raise OSError("pidfd_open is not available")

    monkeypatch.setattr(process.os, "pidfd_open", no_pidfd, raising=False)
    result = await asyncio.wait_for(run_shell("echo out; exit 4", root, 10, 1000), 30)
    assert (result.exit_code, result.output) == (4, "out\n")


async def test_runs_in_the_root_with_stdin_closed(root: Path) -> None:
    result = await run_shell("pwd; cat; echo done", root, 10, 1000)
    assert result.output == f"{root}\ndone\n"
    assert result.exit_code == 0


async def test_output_keeps_head_and_tail(root: Path) -> None:
    command = "echo BEGIN; head -c 100000 /dev/zero | tr '\\0' x; echo; echo END"
    result = await run_shell(command, root, 10, 1000)
    assert result.output.startswith("BEGIN\n")
    assert result.output.endswith("END\n")
    assert result.truncated_bytes == 6 + 100001 + 4 - 1000
    assert f"[... {result.truncated_bytes:,} bytes of output cut ...]" in result.output
    assert len(result.output) < 1100


def test_output_capture_counts_every_dropped_byte() -> None:
    capture = OutputCapture(10)
    for chunk in (b"abc", b"defgh", b"ijklmnop", b"qrstuvwxyz"):
        capture.add(chunk)
    assert capture.dropped == 16
    assert capture.text() == "abcde\n[... 16 bytes of output cut ...]\nvwxyz"


async def test_timeout_kills_the_whole_process_group(
    root: Path, alive: Callable[[int], bool], reap_pids: list[int]
) -> None:
    result = await run_shell(SPAWN_CHILDREN + "echo started; sleep 1000", root, 1.5, 1000)
    reap_pids.extend(await wait_for_pids(root / "pids", 2))
    assert result.timed_out
    assert result.exit_code is None
    assert "started" in result.output
    assert await wait_until_gone(reap_pids, alive) == []


async def test_cancellation_kills_the_whole_process_group(
    root: Path, alive: Callable[[int], bool], reap_pids: list[int]
) -> None:
    task = asyncio.create_task(run_shell(SPAWN_CHILDREN + "sleep 1000", root, 600, 1000))
    reap_pids.extend(await wait_for_pids(root / "pids", 2))
    assert all(alive(pid) for pid in reap_pids)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_until_gone(reap_pids, alive) == []


async def test_background_children_do_not_outlive_the_command(
    root: Path, alive: Callable[[int], bool], reap_pids: list[int]
) -> None:
    # Bounded, so a runner that waits for the children fails instead of hanging.
    result = await asyncio.wait_for(
        run_shell(SPAWN_CHILDREN + "echo main done", root, 600, 1000), 30
    )
    reap_pids.extend(await wait_for_pids(root / "pids", 2))
    assert result.exit_code == 0
    assert "main done" in result.output
    assert await wait_until_gone(reap_pids, alive) == []


async def test_children_ignoring_sigterm_get_sigkill(
    root: Path,
    alive: Callable[[int], bool],
    reap_pids: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(process, "KILL_GRACE_SECONDS", 0.2)
    command = "bash -c 'trap \"\" TERM; echo $$ > pids; while true; do sleep 0.05; done' & wait"
    task = asyncio.create_task(run_shell(command, root, 600, 1000))
    reap_pids.extend(await wait_for_pids(root / "pids", 1))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await wait_until_gone(reap_pids, alive) == []
