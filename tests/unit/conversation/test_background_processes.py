"""A session's background processes in the conversation: logged when they start, exit
(between runs too) and stop; ids go on across the processes that open the session; a
turn while one runs is checkpointed as a command's, and an undo of the ask that started
one stops it before it puts files back."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from agentls.contracts.processes import ProcessChange
from agentls.permissions.approvers import AutoApprover
from tests.unit.helpers import call, conversation

OFF = {"sandbox": "off"}  # the conversation's part alone: no bubblewrap needed


def process_lines(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in path.read_text().splitlines() if line]
    return [line for line in lines if line["kind"] == "process"]


def background(call_id: str, command: str) -> dict[str, Any]:
    return call("run_command", call_id, command=command, background=True)


async def test_an_undo_of_the_ask_stops_its_process_before_it_puts_files_back(
    tmp_path: Path,
) -> None:
    conv, _, manager = conversation(
        tmp_path,
        [
            {"toolCalls": [background("b1", "sleep 1000")]},
            {"toolCalls": [call("write_file", "w1", path="a.py", content="A = 1\n")]},
            {"text": "Done."},
        ],
        settings=OFF,
    )
    result = await conv.ask("serve and write", approver=AutoApprover())
    assert result.text == "Done."
    undone = await conv.undo(None)
    assert undone.done and undone.removed == ["a.py"]
    assert not (conv.root / "a.py").exists()
    assert [(p.id, p.state) for p in conv.background_processes()] == [("p1", "stopped")]
    lines = process_lines(conv.log.path)
    assert [(e["action"], e["by"]) for e in lines] == [("started", None), ("stopped", "undo")]
    assert conv.current is not None and lines[0]["run"] == conv.current.run_id
    assert lines[0]["callId"] == "b1"
    manager.close()


async def test_an_exit_between_runs_is_logged_and_told(tmp_path: Path) -> None:
    conv, _, manager = conversation(
        tmp_path,
        [{"toolCalls": [background("b1", "while [ ! -e done ]; do sleep 0.02; done")]},
         {"text": "Started."}],
        settings=OFF,
    )  # fmt: skip
    changes: list[ProcessChange] = []
    exited = asyncio.Event()

    def told(change: ProcessChange) -> None:
        changes.append(change)
        if change.action == "exited":
            exited.set()

    conv.watch_processes(told)
    await conv.ask("start it", approver=AutoApprover())
    (conv.root / "done").write_text("")  # the process ends by itself, after the run
    await asyncio.wait_for(exited.wait(), 30)
    assert [(c.action, c.process.exit_code) for c in changes] == [("started", None), ("exited", 0)]
    (_, ended) = process_lines(conv.log.path)
    assert (ended["action"], ended["exitCode"], ended["run"]) == ("exited", 0, None)
    manager.close()


async def test_ids_go_on_in_the_next_process_that_opens_the_session(tmp_path: Path) -> None:
    first, _, manager = conversation(
        tmp_path,
        [{"toolCalls": [background("b1", "sleep 1000")]}, {"text": "One."}],
        settings=OFF,
    )
    await first.ask("one", approver=AutoApprover())
    assert [p.id for p in await first.end_processes()] == ["p1"]
    manager.close()
    again, _, manager = conversation(
        tmp_path,
        [{"toolCalls": [background("b2", "sleep 1000")]}, {"text": "Two."}],
        settings=OFF,
        session_id=first.session_id,
    )
    await again.ask("two", approver=AutoApprover())
    assert [p.id for p in again.background_processes()] == ["p2"]
    await again.end_processes()
    manager.close()


async def test_a_turn_while_a_process_runs_is_checkpointed_as_a_commands(tmp_path: Path) -> None:
    made = "while [ ! -e trigger ]; do sleep 0.02; done; echo made > made.txt; echo written"
    conv, _, manager = conversation(
        tmp_path,
        [
            {"toolCalls": [background("b1", made)]},
            # A write of one file, then a read that waits for the process's own write.
            {"toolCalls": [call("write_file", "w1", path="trigger", content="go\n"),
                           call("process_output", "o1", id="p1", wait_seconds=30)]},
            {"text": "Done."},
        ],
        settings=OFF,
    )  # fmt: skip
    await conv.ask("make it", approver=AutoApprover())
    lines = [json.loads(line) for line in conv.log.path.read_text().splitlines() if line]
    checkpoint = [e for e in lines if e["kind"] == "checkpoint" and e["turn"] == 2]
    (second,) = checkpoint
    assert {c["path"] for c in second["changed"]} == {"trigger", "made.txt"}
    await conv.end_processes()
    manager.close()


async def test_a_rewind_stops_the_processes_its_asks_started_and_not_the_others(
    tmp_path: Path,
) -> None:
    conv, _, manager = conversation(
        tmp_path,
        [
            {"toolCalls": [background("b1", "sleep 1000")]},
            {"text": "First."},
            {"toolCalls": [background("b2", "sleep 1001")]},
            {"text": "Second."},
        ],
        settings=OFF,
    )
    await conv.ask("serve one", approver=AutoApprover())
    await conv.ask("serve two", approver=AutoApprover())
    await conv.rewind(2, files=False)
    states = {p.id: p.state for p in conv.background_processes()}
    assert states == {"p1": "running", "p2": "stopped"}
    lines = process_lines(conv.log.path)
    assert [(e["id"], e["action"], e["by"]) for e in lines][-1] == ("p2", "stopped", "rewind")
    await conv.end_processes()
    manager.close()
