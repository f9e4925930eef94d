"""`agentls acp` driven by the Python SDK's client side over stdio, with the scripted model."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

from acp import embedded_text_resource, resource_block, resource_link_block, text_block
from acp.schema import EnvVariable, McpServerStdio

from tests.e2e.acp.client import RecordingClient, agent
from tests.fakes.mcp_server import HERE as MCP_SERVER
from tests.helpers import until, write_script


def read_then_edit(
    path: str, old: str, new: str, after: dict[str, object]
) -> list[dict[str, object]]:
    return [
        {"toolCalls": [{"name": "read_file", "input": {"path": path}}]},
        {
            "toolCalls": [
                {"name": "edit_file", "input": {"path": path, "old_text": old, "new_text": new}}
            ]
        },
        after,
    ]


def agentls(state: Path, workspace: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "agentls", *args], cwd=workspace, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip


async def test_a_prompt_streams_text(isolated_state: Path, workspace: Path, tmp_path: Path) -> None:
    model = write_script(
        tmp_path / "s.json", [{"thinking": "Greet back.", "text": "Hello from the script."}]
    )
    client = RecordingClient()
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("hi")])
    assert answer.stop_reason == "end_turn"
    assert client.text() == "Hello from the script."
    assert client.text("agent_thought_chunk") == "Greet back."
    usage = next(u for u in client.updates if u["sessionUpdate"] == "usage_update")
    assert usage["size"] > 0
    commands = next(u for u in client.updates if u["sessionUpdate"] == "available_commands_update")
    names = {c["name"] for c in commands["availableCommands"]}
    assert names == {"undo", "rewind", "mode", "compact", "memory"}
    assert session.modes is not None and session.modes.current_mode_id == "default"


async def test_an_edit_shows_as_a_diff_is_allowed_and_lands_through_the_client(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    target = workspace / "a.py"
    target.write_text("x = 1\n")
    client = RecordingClient(answers=["allow_once"])
    client.buffers[str(target)] = "x = 1  # unsaved\n"  # the editor's buffer, not on disk
    turns = read_then_edit(
        "a.py",
        "x = 1  # unsaved",
        "x = 2",
        {"text": "Done.", "expect": {"lastToolResultContains": "Edited"}},
    )
    turns[1]["expect"] = {"lastToolResultContains": "# unsaved"}
    model = write_script(tmp_path / "s.json", turns)
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("edit a.py")])
    assert answer.stop_reason == "end_turn", client.text()
    assert str(target) in client.reads
    (asked,) = client.permissions
    (diff,) = asked["toolCall"]["content"]
    assert diff == {
        "type": "diff",
        "path": str(target),
        "oldText": "x = 1  # unsaved\n",
        "newText": "x = 2\n",
    }
    assert [k["kind"] for k in asked["options"]] == [
        "allow_once",
        "allow_always",
        "reject_once",
        "reject_always",
    ]
    call_id = asked["toolCall"]["toolCallId"]
    seen = client.tool_updates(call_id)
    assert seen[0]["sessionUpdate"] == "tool_call" and seen[0]["kind"] == "edit"
    assert seen[0]["locations"] == [{"path": str(target)}]
    assert seen[-1]["status"] == "completed"
    assert client.writes == [(str(target), "x = 2\n")]
    assert target.read_text() == "x = 2\n"


async def test_an_edit_lands_on_disk_without_client_files_then_shows_in_sessions_and_undoes(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    target = workspace / "a.py"
    target.write_text("x = 1\n")
    client = RecordingClient(offers_fs=False, answers=["allow_once"])
    model = write_script(
        tmp_path / "s.json", read_then_edit("a.py", "x = 1", "x = 2", {"text": "Done."})
    )
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("edit a.py")])
    assert answer.stop_reason == "end_turn"
    assert client.reads == [] and client.writes == []
    assert target.read_text() == "x = 2\n"
    (asked,) = client.permissions
    assert asked["toolCall"]["content"][0]["type"] == "diff"
    listed = agentls(isolated_state, workspace, "sessions")
    assert session.session_id in listed.stdout, listed.stdout + listed.stderr
    shown = agentls(isolated_state, workspace, "show", session.session_id)
    assert "edit a.py" in shown.stdout
    undone = agentls(isolated_state, workspace, "undo", session.session_id)
    assert undone.returncode == 0, undone.stdout + undone.stderr
    assert target.read_text() == "x = 1\n"


async def test_a_rejected_edit_changes_nothing_and_the_model_is_told(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    target = workspace / "a.py"
    target.write_text("x = 1\n")
    client = RecordingClient(answers=["reject_once"])
    after = {"text": "Understood.", "expect": {"lastToolResultContains": "rejected the edit"}}
    model = write_script(tmp_path / "s.json", read_then_edit("a.py", "x = 1", "x = 2", after))
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("edit a.py")])
    assert answer.stop_reason == "end_turn", client.text()
    assert client.text() == "Understood."
    assert target.read_text() == "x = 1\n" and client.writes == []
    call_id = client.permissions[0]["toolCall"]["toolCallId"]
    assert client.tool_updates(call_id)[-1]["status"] == "failed"


async def test_an_allow_always_answer_is_not_asked_again(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    echo = {"name": "run_command", "input": {"command": "echo agentlsok"}}
    turns = [
        {"toolCalls": [echo]},
        {"toolCalls": [echo], "expect": {"lastToolResultContains": "agentlsok"}},
        {"text": "Twice.", "expect": {"lastToolResultContains": "agentlsok"}},
    ]
    client = RecordingClient(answers=["allow_always"])
    model = write_script(tmp_path / "s.json", turns)
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("echo twice")])
    assert answer.stop_reason == "end_turn", client.text()
    (asked,) = client.permissions
    assert "run_command(echo agentlsok)" in asked["options"][1]["name"]
    outputs = [
        u for u in client.updates
        if u["sessionUpdate"] == "tool_call_update" and u.get("status") == "completed"
    ]  # fmt: skip
    assert len(outputs) == 2
    assert all("agentlsok" in u["content"][0]["content"]["text"] for u in outputs)
    starts = [u for u in client.updates if u["sessionUpdate"] == "tool_call"]
    assert [s["kind"] for s in starts] == ["execute", "execute"]


def _processes_with(argument: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argument.encode() in words and b"sleep" in words[0]:
            found.append(int(entry.name))
    return found


async def test_cancel_during_a_running_command_kills_it_and_answers_cancelled(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    marker = "301.4159"  # a unique argument to find the process by
    command = {"name": "run_command", "input": {"command": f"sleep {marker}"}}
    client = RecordingClient(answers=["allow_once"])
    model = write_script(tmp_path / "s.json", [{"toolCalls": [command]}])
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        prompt = asyncio.create_task(
            conn.prompt(session_id=session.session_id, prompt=[text_block("sleep")])
        )
        await until(lambda: _processes_with(marker))
        await conn.cancel(session_id=session.session_id)
        answer = await asyncio.wait_for(prompt, 30)
        await until(lambda: not _processes_with(marker))
    assert answer.stop_reason == "cancelled"
    last = client.tool_updates(client.permissions[0]["toolCall"]["toolCallId"])[-1]
    assert last["status"] == "failed"


async def test_cancel_ends_a_pending_permission_request(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    command = {"name": "run_command", "input": {"command": "echo never"}}
    client = RecordingClient(answers=["wait"])
    model = write_script(tmp_path / "s.json", [{"toolCalls": [command]}])
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        prompt = asyncio.create_task(
            conn.prompt(session_id=session.session_id, prompt=[text_block("echo")])
        )
        await client.wait_for(lambda: client.permissions)
        elsewhere = agentls(isolated_state, workspace, "undo", session.session_id)
        await conn.cancel(session_id=session.session_id)
        answer = await asyncio.wait_for(prompt, 30)
    assert answer.stop_reason == "cancelled"
    assert elsewhere.returncode == 2  # one writer per session, across processes
    assert "running elsewhere (the ACP agent" in elsewhere.stderr


async def test_a_cancelled_permission_outcome_aborts_the_run(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    command = {"name": "run_command", "input": {"command": "echo never"}}
    client = RecordingClient(answers=["cancelled"])
    model = write_script(tmp_path / "s.json", [{"toolCalls": [command]}])
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("echo")])
    assert answer.stop_reason == "cancelled"


async def test_session_load_replays_an_earlier_session(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    echo = {"name": "run_command", "input": {"command": "echo replayed-output"}}
    model = write_script(tmp_path / "s.json", [{"toolCalls": [echo]}, {"text": "All done."}])
    first = RecordingClient(answers=["allow_once"])
    async with agent(first, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.prompt(session_id=session.session_id, prompt=[text_block("please echo")])
        listed = await conn.list_sessions(cwd=str(workspace))
    assert [s.session_id for s in listed.sessions] == [session.session_id]
    assert listed.sessions[0].title == "please echo"
    second = RecordingClient()
    async with agent(second, model, workspace) as (conn, _):
        await conn.load_session(cwd=str(workspace), session_id=session.session_id, mcp_servers=[])
        replayed = list(second.updates)  # all of it arrived before the answer
        await conn.prompt(session_id=session.session_id, prompt=[text_block("again")])
    costs = [
        [u["cost"]["amount"] for u in c.updates if u["sessionUpdate"] == "usage_update"]
        for c in (first, second)
    ]
    assert costs[1][0] > costs[0][-1] > 0  # the loaded session's cost goes on from its log
    assert second.text("user_message_chunk") == "please echo"
    assert "All done." in "".join(
        u["content"]["text"] for u in replayed if u["sessionUpdate"] == "agent_message_chunk"
    )
    calls = [u for u in replayed if u["sessionUpdate"] == "tool_call"]
    assert calls[0]["kind"] == "execute" and calls[0]["rawInput"] == echo["input"]
    live = next(u for u in first.updates if u["sessionUpdate"] == "tool_call")
    assert calls[0]["title"] == live["title"]  # the summary the log recorded
    result = next(u for u in replayed if u["sessionUpdate"] == "tool_call_update")
    assert "replayed-output" in result["content"][0]["content"]["text"]


async def test_an_mcp_server_from_session_new_is_used_under_the_gate(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    add = {"name": "mcp__test__add", "input": {"a": 40, "b": 2}}
    turns = [
        {"toolCalls": [add], "expect": {"toolsInclude": ["mcp__test__add"]}},
        {"text": "It is 42.", "expect": {"lastToolResultContains": "the sum is 42"}},
    ]
    client = RecordingClient(answers=["allow_once"])
    model = write_script(tmp_path / "s.json", turns)
    server = McpServerStdio(
        name="test", command=sys.executable, args=[str(MCP_SERVER)],
        env=[EnvVariable(name="MCP_FAKE_MARKER", value=str(tmp_path / "starts.txt"))],
    )  # fmt: skip
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[server])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("add")])
    assert answer.stop_reason == "end_turn", client.text()
    assert client.text() == "It is 42."
    (asked,) = client.permissions  # an external tool is asked about, like any
    assert asked["toolCall"]["toolCallId"] and "mcp__test__add" in asked["options"][1]["name"]
    assert (tmp_path / "starts.txt").exists()


async def test_undo_and_mode_commands(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    target = workspace / "a.py"
    target.write_text("x = 1\n")
    client = RecordingClient(answers=["allow_once"])
    model = write_script(
        tmp_path / "s.json", read_then_edit("a.py", "x = 1", "x = 2", {"text": "Done."})
    )
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        sid = session.session_id
        await conn.prompt(session_id=sid, prompt=[text_block("edit a.py")])
        assert target.read_text() == "x = 2\n"
        answer = await conn.prompt(session_id=sid, prompt=[text_block("/undo")])
        assert answer.stop_reason == "end_turn"
        assert target.read_text() == "x = 1\n"
        await conn.prompt(session_id=sid, prompt=[text_block("/mode plan")])
    modes = [
        u["currentModeId"] for u in client.updates if u["sessionUpdate"] == "current_mode_update"
    ]
    assert modes == ["plan"]
    assert "undid the ask “edit a.py”" in client.text()


async def test_undo_across_a_link_out_restores_the_rest_and_says_what_it_refused(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.py").write_text("OUTSIDE = 1\n")
    (workspace / "sub").mkdir()
    (workspace / "sub" / "a.py").write_text("S = 1\n")
    (workspace / "top.py").write_text("T = 1\n")
    client = RecordingClient(answers=["allow_once", "allow_once", "allow_once"])

    def edit(path: str, old: str, new: str) -> dict[str, object]:
        return {"name": "edit_file", "input": {"path": path, "old_text": old, "new_text": new}}

    model = write_script(tmp_path / "s.json", [
        {"toolCalls": [{"name": "read_file", "input": {"path": "sub/a.py"}},
                       {"name": "read_file", "input": {"path": "top.py"}}]},
        {"toolCalls": [edit("sub/a.py", "S = 1", "S = 2"), edit("top.py", "T = 1", "T = 2")]},
        {"toolCalls": [{"name": "run_command",
                        "input": {"command": f"rm -rf sub && ln -s {outside} sub"}}]},
        {"text": "Linked."},
    ])  # fmt: skip
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        sid = session.session_id
        await conn.prompt(session_id=sid, prompt=[text_block("edit, then link sub out")])
        assert (workspace / "sub").is_symlink() and (workspace / "top.py").read_text() == "T = 2\n"
        answer = await conn.prompt(session_id=sid, prompt=[text_block("/undo")])
        assert answer.stop_reason == "end_turn"
    assert (workspace / "top.py").read_text() == "T = 1\n"
    assert [p.name for p in outside.iterdir()] == ["a.py"]
    assert (outside / "a.py").read_text() == "OUTSIDE = 1\n"
    said = client.text()
    assert "undid only part of the ask “edit, then link sub out”" in said
    assert "restored top.py; refused sub, sub/a.py: a link now leads out of the workspace" in said


async def test_allow_always_on_an_edit_covers_the_next_edit_of_that_file(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    target = workspace / "a.py"
    target.write_text("x = 1\n")
    turns = [
        *read_then_edit("a.py", "x = 1", "x = 2", {})[:2],
        {
            "toolCalls": [
                {
                    "name": "edit_file",
                    "input": {"path": "a.py", "old_text": "x = 2", "new_text": "x = 3"},
                }
            ]
        },
        {"text": "Done.", "expect": {"lastToolResultContains": "Edited"}},
    ]
    client = RecordingClient(answers=["allow_always"])
    model = write_script(tmp_path / "s.json", turns)
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("edit twice")])
    assert answer.stop_reason == "end_turn", client.text()
    assert len(client.permissions) == 1
    assert target.read_text() == "x = 3\n"
    diffs = [
        c for u in client.updates if u["sessionUpdate"] == "tool_call_update"
        for c in u.get("content") or [] if c["type"] == "diff"
    ]  # fmt: skip
    assert [d["newText"] for d in diffs] == ["x = 2\n", "x = 3\n"]  # shown, even unasked


async def test_resource_links_and_embedded_resources_reach_the_model(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    expect = {
        "lastMessageContains": 'points at src/app.py]\n\n<context source="notes.md">\nremember'
    }
    model = write_script(tmp_path / "s.json", [{"text": "Seen.", "expect": expect}])
    client = RecordingClient()
    link = resource_link_block(name="app.py", uri=(workspace / "src" / "app.py").as_uri())
    notes = embedded_text_resource(uri=(workspace / "notes.md").as_uri(), text="remember this")
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(
            session_id=session.session_id,
            prompt=[text_block("look"), link, resource_block(notes)],
        )
    assert answer.stop_reason == "end_turn", client.text()
    assert client.text() == "Seen."


async def test_an_edit_of_a_secret_file_is_asked_about_once(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    write = {"name": "write_file", "input": {"path": ".env", "content": "TOKEN=x\n"}}
    model = write_script(tmp_path / "s.json", [{"toolCalls": [write]}, {"text": "Written."}])
    client = RecordingClient(answers=["allow_once"])
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("env")])
    assert answer.stop_reason == "end_turn", client.text()
    assert len(client.permissions) == 1  # the gate's question; the diff is not asked again
    assert (workspace / ".env").read_text() == "TOKEN=x\n"


async def test_compact_summarises_the_older_history_now(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    turns = [
        {"text": "One."},
        {"text": "Two."},
        {"text": "SUMMARY: counted to two."},
        {"text": "Three."},
    ]
    model = write_script(tmp_path / "s.json", turns)
    client = RecordingClient()
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        sid = session.session_id
        early = await conn.prompt(session_id=sid, prompt=[text_block("/compact")])
        for word in ("one", "two"):
            await conn.prompt(session_id=sid, prompt=[text_block(f"say {word}")])
        answer = await conn.prompt(session_id=sid, prompt=[text_block("/compact")])
        after = await conn.prompt(session_id=sid, prompt=[text_block("say three")])
    assert early.stop_reason == answer.stop_reason == after.stop_reason == "end_turn"
    assert client.text().endswith("Three.")
    shown = agentls(isolated_state, workspace, "show", sid)
    assert shown.returncode == 0 and "Ask 3 — say three" in shown.stdout
    assert "nothing to compact yet" in client.text()
    assert "compacted: the older history is summarised" in client.text()
    (log,) = (isolated_state / "sessions").glob("*.jsonl")
    events = [json.loads(line) for line in log.read_text().splitlines()]
    (summary,) = [e for e in events if e["kind"] == "context_summary"]
    assert summary["text"] == "SUMMARY: counted to two." and summary["reason"] == "requested"
    assert any(e["kind"] == "usage" and e.get("purpose") == "compaction" for e in events)
