"""Prompt commands in an ACP session (the official Python SDK as the client, the fake
Anthropic server as the model): listed after the built-in commands with their input
hints, expanded as in every face, an unknown name answered with the list, and a command
file added meanwhile offered after the next prompt."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from acp import text_block

from tests.e2e.acp.client import RecordingClient, agent, anthropic_env
from tests.fakes.anthropic_server import FakeAnthropic, turn

MODEL = "anthropic:claude-sonnet-4-5"
BUILT_IN = ["undo", "mode", "compact", "memory", "rewind"]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _lists(client: RecordingClient) -> list[list[dict[str, Any]]]:
    return [
        u["availableCommands"]
        for u in client.updates
        if u["sessionUpdate"] == "available_commands_update"
    ]


async def test_commands_are_listed_after_the_built_in_ones_with_their_hints(
    isolated_state: Path, workspace: Path
) -> None:
    _write(workspace / ".agentls/commands/review.md",
           "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1\n")  # fmt: skip
    _write(workspace / ".claude/commands/git/commit.md", "Commit $ARGUMENTS\n")
    _write(workspace / ".agentls/commands/mode.md", "Not the built-in /mode.\n")
    _write(Path(os.environ["XDG_CONFIG_HOME"]) / "agentls/commands/mine.md", "Mine.\n")
    client = RecordingClient()
    with FakeAnthropic([]) as fake:
        async with agent(client, MODEL, workspace, env=anthropic_env(fake)) as (conn, _):
            sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
            await client.wait_for(lambda: _lists(client))
            (listed,) = _lists(client)
            mode = await conn.prompt(session_id=sid, prompt=[text_block("/mode")])
    assert [c["name"] for c in listed] == [*BUILT_IN, "git:commit", "mine", "review"]
    by_name = {c["name"]: c for c in listed}
    assert by_name["review"]["description"] == "Review a file (project)"
    assert by_name["review"]["input"] == {"hint": "FILE"}
    assert by_name["git:commit"]["input"] == {"hint": "arguments"}
    assert by_name["mine"]["description"] == "Mine. (user)"
    # the built-in /mode answers, whatever a file of that name says
    assert mode.stop_reason == "end_turn" and "the mode is default" in client.text()
    assert fake.requests == []


async def test_a_command_expands_and_an_unknown_one_is_answered_with_the_list(
    isolated_state: Path, workspace: Path
) -> None:
    _write(workspace / ".agentls/commands/review.md", "Review $1 for $2.\n")
    client = RecordingClient()
    with FakeAnthropic([turn("Reviewed.")]) as fake:
        async with agent(client, MODEL, workspace, env=anthropic_env(fake)) as (conn, _):
            sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
            unknown = await conn.prompt(session_id=sid, prompt=[text_block("/reveiw a.py")])
            said_unknown = client.text()
            answer = await conn.prompt(session_id=sid, prompt=[text_block("/review a.py naming")])
        sent = fake.requests[0].body["messages"][0]["content"]
    assert unknown.stop_reason == "end_turn"
    assert "unknown command /reveiw" in said_unknown and "/review" in said_unknown
    assert answer.stop_reason == "end_turn"
    assert "".join(b["text"] for b in sent) == "Review a.py for naming."
    assert len(fake.requests) == 1  # the unknown name reached no model
    assert client.text().endswith("[/review: .agentls/commands/review.md]\n\nReviewed.")


async def test_a_command_file_added_meanwhile_is_offered_after_the_next_prompt(
    isolated_state: Path, workspace: Path
) -> None:
    client = RecordingClient()
    with FakeAnthropic([turn("One."), turn("Two.")]) as fake:
        async with agent(client, MODEL, workspace, env=anthropic_env(fake)) as (conn, _):
            sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
            await conn.prompt(session_id=sid, prompt=[text_block("hi")])
            _write(workspace / ".agentls/commands/fresh.md", "Fresh.\n")
            await conn.prompt(session_id=sid, prompt=[text_block("again")])
    first, second = _lists(client)  # sent again only once the list changed
    assert [c["name"] for c in first] == BUILT_IN
    assert [c["name"] for c in second] == [*BUILT_IN, "fresh"]
