"""`agentls acp` driven by the official TypeScript SDK (`@agentclientprotocol/sdk` 2.x)
through node/client.mjs, with the scripted model."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.acp.test_acp_python_client import _processes_with, read_then_edit
from tests.fakes.mcp_server import HERE as MCP_SERVER
from tests.helpers import write_script

NODE_DIR = Path(__file__).parent / "node"
STAMP = NODE_DIR / "node_modules" / ".installed"


@pytest.fixture(scope="module")
def node() -> str:
    """node, with the client's locked dependencies installed once (as `make test` does)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are needed for the TypeScript ACP client")
    if not STAMP.exists():
        subprocess.run(
            [npm, "ci", "--prefer-offline", "--no-audit", "--no-fund"], cwd=NODE_DIR, check=True,
            capture_output=True, timeout=600,
        )  # fmt: skip
        STAMP.touch()
    return node


def drive(node: str, workspace: Path, model: str, **plan: Any) -> dict[str, Any]:
    plan = {
        "command": [sys.executable, "-m", "agentls", "acp", "--model", model],
        "cwd": str(workspace), "fs": True, **plan,
    }  # fmt: skip
    with open(workspace.parent / "agent-stderr.log", "ab") as log:
        done = subprocess.run(
            [node, str(NODE_DIR / "client.mjs"), json.dumps(plan)],
            stdout=subprocess.PIPE, stderr=log, text=True, timeout=120,
        )  # fmt: skip
    assert done.returncode == 0, (workspace.parent / "agent-stderr.log").read_text()[-3000:]
    report: dict[str, Any] = json.loads(done.stdout)
    assert report["exitCode"] == 0
    return report


def texts(report: dict[str, Any], kind: str = "agent_message_chunk") -> str:
    return "".join(u["content"]["text"] for u in report["updates"] if u["sessionUpdate"] == kind)


def test_a_prompt_streams_text_and_a_malformed_request_is_answered(
    node: str, isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    model = write_script(tmp_path / "s.json", [{"text": "Hello from TypeScript's side."}])
    report = drive(node, workspace, model, prompts=["hi"], malformed=True)
    assert report["initialize"]["agentCapabilities"]["loadSession"] is True
    assert [e["code"] for e in report["errors"]] == [-32602]
    assert report["stops"] == ["end_turn"]
    assert texts(report) == "Hello from TypeScript's side."


def test_an_edit_shows_as_a_diff_and_lands_through_fs_write_text_file(
    node: str, isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    target = workspace / "a.py"
    target.write_text("x = 1\n")
    model = write_script(
        tmp_path / "s.json", read_then_edit("a.py", "x = 1", "x = 2", {"text": "Done."})
    )
    report = drive(node, workspace, model, prompts=["edit"], answers=["allow_once"])
    assert report["stops"] == ["end_turn"]
    (asked,) = report["permissions"]
    assert asked["toolCall"]["content"] == [
        {"type": "diff", "path": str(target), "oldText": "x = 1\n", "newText": "x = 2\n"}
    ]
    assert report["reads"] == [str(target)] * len(report["reads"]) and report["reads"]
    assert report["writes"] == [[str(target), "x = 2\n"]]
    assert target.read_text() == "x = 2\n"
    listed = subprocess.run(
        [sys.executable, "-m", "agentls", "sessions"], capture_output=True, text=True,
        timeout=60, cwd=workspace,
    )  # fmt: skip
    assert report["sessionId"] in listed.stdout
    undone = subprocess.run(
        [sys.executable, "-m", "agentls", "undo", report["sessionId"]],
        capture_output=True, text=True, timeout=60, cwd=workspace,
    )  # fmt: skip
    assert undone.returncode == 0, undone.stderr
    assert target.read_text() == "x = 1\n"


def test_an_edit_lands_on_disk_when_the_client_offers_no_files(
    node: str, isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    target = workspace / "a.py"
    target.write_text("x = 1\n")
    model = write_script(
        tmp_path / "s.json", read_then_edit("a.py", "x = 1", "x = 2", {"text": "Done."})
    )
    report = drive(node, workspace, model, prompts=["edit"], answers=["allow_once"], fs=False)
    assert report["stops"] == ["end_turn"]
    assert report["reads"] == [] and report["writes"] == []
    assert target.read_text() == "x = 2\n"


def test_a_rejected_edit_changes_nothing_and_the_model_is_told(
    node: str, isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    target = workspace / "a.py"
    target.write_text("x = 1\n")
    after = {"text": "Fine.", "expect": {"lastToolResultContains": "rejected the edit"}}
    model = write_script(tmp_path / "s.json", read_then_edit("a.py", "x = 1", "x = 2", after))
    report = drive(node, workspace, model, prompts=["edit"], answers=["reject_once"])
    assert report["stops"] == ["end_turn"] and texts(report) == "Fine."
    assert target.read_text() == "x = 1\n" and report["writes"] == []


def test_allow_always_is_not_asked_again(
    node: str, isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    echo = {"name": "run_command", "input": {"command": "echo agentlsok"}}
    turns = [{"toolCalls": [echo]}, {"toolCalls": [echo]}, {"text": "Twice."}]
    model = write_script(tmp_path / "s.json", turns)
    report = drive(node, workspace, model, prompts=["twice"], answers=["allow_always"])
    assert report["stops"] == ["end_turn"] and len(report["permissions"]) == 1
    done = [
        u for u in report["updates"]
        if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "completed"
    ]  # fmt: skip
    assert len(done) == 2


def test_cancel_during_a_running_command_kills_it(
    node: str, isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    marker = "302.7182"
    command = {"name": "run_command", "input": {"command": f"touch started; sleep {marker}"}}
    model = write_script(tmp_path / "s.json", [{"toolCalls": [command]}])
    report = drive(
        node, workspace, model, prompts=["sleep"], answers=["allow_once"],
        cancelWhenFile="started",
    )  # fmt: skip
    assert report["stops"] == ["cancelled"]
    assert (workspace / "started").exists()
    assert _processes_with(marker) == []  # the agent answered after killing it


def test_session_load_replays_an_earlier_session(
    node: str, isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    model = write_script(tmp_path / "s.json", [{"text": "First answer."}])
    first = drive(node, workspace, model, prompts=["first question"])
    second = drive(node, workspace, model, load=first["sessionId"])
    assert second["updatesBeforeLoadAnswer"] >= 2
    assert texts(second, "user_message_chunk") == "first question"
    assert texts(second) == "First answer."


def test_an_mcp_server_from_session_new_is_used_under_the_gate(
    node: str, isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    add = {"name": "mcp__test__add", "input": {"a": 40, "b": 2}}
    turns = [
        {"toolCalls": [add]},
        {"text": "It is 42.", "expect": {"lastToolResultContains": "the sum is 42"}},
    ]
    model = write_script(tmp_path / "s.json", turns)
    server = {"name": "test", "command": sys.executable, "args": [str(MCP_SERVER)], "env": []}
    report = drive(
        node, workspace, model, prompts=["add"], answers=["allow_once"], mcpServers=[server]
    )
    assert report["stops"] == ["end_turn"] and texts(report) == "It is 42."
    assert len(report["permissions"]) == 1


def test_a_session_set_to_plan_is_in_plan_when_a_new_agent_loads_it(
    node: str, isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    target = workspace / "a.py"
    target.write_text("x = 1\n")
    refused = {"text": "Not in plan mode.", "expect": {"lastToolResultContains": "plan mode"}}
    model = write_script(tmp_path / "s.json", read_then_edit("a.py", "x = 1", "x = 2", refused))
    first = drive(node, workspace, model, mode="plan")
    second = drive(
        node, workspace, model, load=first["sessionId"], prompts=["edit"], answers=["allow_once"]
    )
    assert second["opened"]["modes"]["currentModeId"] == "plan"
    (mode,) = [o for o in second["opened"]["configOptions"] if o["id"] == "mode"]
    assert mode["currentValue"] == "plan"
    assert second["stops"] == ["end_turn"] and texts(second) == "Not in plan mode."
    assert target.read_text() == "x = 1\n"
    assert second["permissions"] == [] and second["writes"] == []


def test_requests_name_their_call_and_it_is_pending_until_answered(
    node: str, isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    target = workspace / "greet.py"
    target.write_text("x = 1\n")
    command = {"name": "run_command", "input": {"command": "echo checked"}}
    turns = [*read_then_edit("greet.py", "x = 1", "x = 2", {"toolCalls": [command]}),
             {"text": "Done."}]  # fmt: skip
    model = write_script(tmp_path / "s.json", turns)
    report = drive(node, workspace, model, prompts=["go"], answers=["allow_once"] * 2)
    assert report["stops"] == ["end_turn"]
    edit, run = report["permissions"]
    assert (edit["toolCall"]["title"], edit["toolCall"]["kind"]) == ("Edit greet.py", "edit")
    assert edit["toolCall"]["locations"] == [{"path": str(target)}]
    assert (run["toolCall"]["title"], run["toolCall"]["kind"]) == ("echo checked", "execute")
    assert run["toolCall"]["locations"] == [{"path": str(workspace)}]
    for asked in (edit, run):
        call_id = asked["toolCall"]["toolCallId"]
        seen = [
            (i, u["status"]) for i, u in enumerate(report["updates"])
            if u.get("toolCallId") == call_id and "status" in u
        ]  # fmt: skip
        cut = asked["updatesBefore"]
        assert {s for i, s in seen if i < cut} == {"pending"}
        assert [s for i, s in seen if i >= cut] == ["in_progress", "completed"]


def test_a_request_the_client_fails_to_answer_cancels_the_prompt(
    node: str, isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    touch = {"name": "run_command", "input": {"command": "touch ran"}}
    model = write_script(tmp_path / "s.json", [{"toolCalls": [touch]}, {"toolCalls": [touch]}])
    report = drive(node, workspace, model, prompts=["touch", "/mode"], answers=["error"])
    assert report["stops"] == ["cancelled", "end_turn"]
    assert len(report["permissions"]) == 1 and not (workspace / "ran").exists()


def test_prompt_commands_are_offered_and_expand(
    node: str, isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    command = workspace / ".agentls" / "commands" / "review.md"
    command.parent.mkdir(parents=True)
    command.write_text("---\nargument-hint: FILE FOCUS\n---\nReview $1 for $2.\n")
    expect = {"lastMessageContains": "Review a.py for speed."}
    model = write_script(tmp_path / "s.json", [{"expect": expect, "text": "Reviewed."}])
    report = drive(node, workspace, model, prompts=["/review a.py speed"])
    assert report["stops"] == ["end_turn"]
    (listed,) = [
        u["availableCommands"]
        for u in report["updates"]
        if u["sessionUpdate"] == "available_commands_update"
    ]
    assert [c["name"] for c in listed] == ["undo", "mode", "compact", "memory", "rewind", "review"]
    assert listed[-1]["input"] == {"hint": "FILE FOCUS"}
    assert texts(report).endswith("Reviewed.")
