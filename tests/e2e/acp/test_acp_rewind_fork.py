"""`/rewind` and `session/fork` through the official Python SDK's client, the model the
fake Anthropic server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from acp import RequestError, text_block
from acp.client.connection import ClientSideConnection

from tests.e2e import rewind_story as story
from tests.e2e.acp.client import RecordingClient, agent, anthropic_env
from tests.fakes.anthropic_server import FakeAnthropic, turn

MODEL = "anthropic:claude-sonnet-4-5"


async def say(conn: ClientSideConnection, client: RecordingClient, sid: str, text: str) -> str:
    """One prompt; what the agent said in answer."""
    before = len(client.updates)
    answer = await conn.prompt(session_id=sid, prompt=[text_block(text)])
    assert answer.stop_reason == "end_turn", answer
    said = client.updates[before:]
    return "".join(
        u["content"].get("text", "") for u in said if u["sessionUpdate"] == "agent_message_chunk"
    )


async def three_asks(
    conn: ClientSideConnection, client: RecordingClient, fake: FakeAnthropic, workspace: Path
) -> str:
    story.workspace_files(workspace)
    sid = (await conn.new_session(cwd=str(workspace), mcp_servers=[])).session_id
    await say(conn, client, sid, "/mode bypass")  # the story is about what comes after
    for number, prompt in enumerate(story.PROMPTS, start=1):
        fake.add(*story.ask_replies(number))
        assert f"answer {number}" in await say(conn, client, sid, prompt)
    story.after_three_asks(workspace)
    return sid


def replay(session: str, workspace: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "agentls", "replay", session], cwd=workspace,
                          capture_output=True, text=True, timeout=120)  # fmt: skip


async def test_rewind_to_ask_2_takes_back_asks_2_and_3_and_their_files(
    isolated_state: Path, workspace: Path, fake: FakeAnthropic
) -> None:
    client = RecordingClient()
    async with agent(client, MODEL, workspace, env=anthropic_env(fake)) as (conn, _):
        sid = await three_asks(conn, client, fake, workspace)
        listed = await say(conn, client, sid, "/rewind")
        assert "1. first: set A to 2\n2. second: make made.txt\n3. third" in listed
        said = await say(conn, client, sid, "/rewind 2")
        assert "rewound to before ask 2: took back asks 2" in said
        assert "restored a.py; removed made.txt; kept b.py as it is" in said
        story.after_rewind_to_ask_2(workspace)

        fake.add(turn("answer 4"))
        assert "answer 4" in await say(conn, client, sid, "fourth")
        story.only_ask_1(story.last_request(fake), "fourth")
        listed = await say(conn, client, sid, "/rewind")
        assert "2. ~~second: make made.txt~~ (taken back)" in listed and "4. fourth" in listed
        assert "nothing rewound: ask 3 is taken back already" in await say(
            conn, client, sid, "/rewind 3"
        )
        assert "/rewind takes an ask's number" in await say(conn, client, sid, "/rewind two")
    proc = replay(sid, workspace)
    assert proc.returncode == 0, proc.stdout + proc.stderr


async def test_session_fork_at_ask_2_sends_ask_1_only_and_changes_no_file(
    isolated_state: Path, workspace: Path, fake: FakeAnthropic
) -> None:
    client = RecordingClient()
    async with agent(client, MODEL, workspace, env=anthropic_env(fake)) as (conn, _):
        sid = await three_asks(conn, client, fake, workspace)
        before = story.files(workspace)
        forked = await conn.fork_session(session_id=sid, cwd=str(workspace), agentls={"ask": 2})
        fork = forked.session_id
        assert fork != sid and forked.modes is not None
        assert story.files(workspace) == before

        fake.add(turn("answer forked"))
        assert "answer forked" in await say(conn, client, fork, "forked")
        story.only_ask_1(story.last_request(fake), "forked")
        assert story.files(workspace) == before

        whole = await conn.fork_session(session_id=sid, cwd=str(workspace))
        fake.add(turn("answer whole"))
        assert "answer whole" in await say(conn, client, whole.session_id, "forked whole")
        assert story.prompts_in(story.last_request(fake)) == [*story.PROMPTS, "forked"]
        with pytest.raises(RequestError, match="no ask 9"):
            await conn.fork_session(session_id=sid, cwd=str(workspace), agentls={"ask": 9})
        listed = await conn.list_sessions(cwd=str(workspace))
        assert {fork, whole.session_id, sid} <= {s.session_id for s in listed.sessions}
    for replayed in (fork, sid):
        proc = replay(replayed, workspace)
        assert proc.returncode == 0, proc.stdout + proc.stderr
