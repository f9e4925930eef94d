"""Plans and steering through the official Python ACP client: the model's checklist as
`plan` session updates, a proposed plan as a permission request whose options are the
modes (each answer, and a cancelled one), and a prompt sent while a run works given to
the model at its next turn boundary (the fake Anthropic server sees it)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from acp import text_block

from tests.e2e.acp.client import RecordingClient, agent, anthropic_env
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.helpers import tool_names, write_script

STEPS = [
    {"step": "Read greet.py", "status": "completed"},
    {"step": "Add shout()", "status": "in_progress"},
]
PLAN = "# Plan\n1. Add shout() to greet.py\n2. Run it"
RELEASE_COMMAND = "while [ ! -e release ]; do sleep 0.05; done; echo released"
MODEL = "anthropic:claude-sonnet-4-5"


async def test_update_plan_reaches_the_client_as_plan_updates(
    isolated_state: Path, workspace: Path, tmp_path: Path
) -> None:
    later = [{**STEPS[0]}, {**STEPS[1], "status": "completed"}]
    model = write_script(tmp_path / "s.json", [
        {"toolCalls": [{"name": "update_plan", "input": {"plan": STEPS}}]},
        {"toolCalls": [{"name": "update_plan", "input": {"plan": later}}]},
        {"text": "Done."},
    ])  # fmt: skip
    client = RecordingClient()
    async with agent(client, model, workspace) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("go")])
    assert answer.stop_reason == "end_turn"
    plans = [u["entries"] for u in client.updates if u["sessionUpdate"] == "plan"]
    assert plans == [  # the whole list each time
        [{"content": "Read greet.py", "priority": "medium", "status": "completed"},
         {"content": "Add shout()", "priority": "medium", "status": "in_progress"}],
        [{"content": "Read greet.py", "priority": "medium", "status": "completed"},
         {"content": "Add shout()", "priority": "medium", "status": "completed"}],
    ]  # fmt: skip
    call = next(u for u in client.updates if u["sessionUpdate"] == "tool_call")
    assert call["kind"] == "think"
    # Loaded in another agent process, the history brings the plan back where it was set.
    loader = RecordingClient()
    async with agent(loader, model, workspace) as (conn, _):
        await conn.load_session(cwd=str(workspace), session_id=session.session_id, mcp_servers=[])
    replayed = [u["entries"] for u in loader.updates if u["sessionUpdate"] == "plan"]
    assert replayed == plans


@pytest.mark.parametrize("choice", ["default", "accept-edits"])
async def test_a_plan_approved_in_the_client_switches_the_mode_and_the_run_goes_on(
    isolated_state: Path, workspace: Path, fake: FakeAnthropic, choice: str
) -> None:
    fake.add(turn(tool_calls=[("toolu_pp", "propose_plan", {"plan": PLAN})]), turn("On it."))
    client = RecordingClient(answers=[choice])
    async with agent(client, MODEL, workspace, env=anthropic_env(fake)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.set_session_mode(session_id=session.session_id, mode_id="plan")
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("plan")])
    assert answer.stop_reason == "end_turn"
    (asked,) = client.permissions
    assert [o["optionId"] for o in asked["options"]] == ["default", "accept-edits", "keep-planning"]
    assert [o["kind"] for o in asked["options"]] == ["allow_once", "allow_always", "reject_once"]
    assert asked["toolCall"]["kind"] == "switch_mode"
    assert asked["toolCall"]["content"][0]["content"]["text"] == PLAN
    assert "propose_plan" in tool_names(fake, 0) and "edit_file" not in tool_names(fake, 0)
    assert "edit_file" in tool_names(fake, 1)
    assert _modes(client)[-1] == choice
    options = [u for u in client.updates if u["sessionUpdate"] == "config_option_update"][-1]
    mode = next(o for o in options["configOptions"] if o["id"] == "mode")
    assert mode["currentValue"] == choice


async def test_keep_planning_stays_in_plan_mode_and_a_cancelled_question_cancels(
    isolated_state: Path, workspace: Path, fake: FakeAnthropic
) -> None:
    fake.add(
        turn(tool_calls=[("toolu_1", "propose_plan", {"plan": "first draft"})]),
        turn(tool_calls=[("toolu_2", "propose_plan", {"plan": PLAN})]),
    )
    client = RecordingClient(answers=["keep-planning", "cancelled"])
    async with agent(client, MODEL, workspace, env=anthropic_env(fake)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        await conn.set_session_mode(session_id=session.session_id, mode_id="plan")
        answer = await conn.prompt(session_id=session.session_id, prompt=[text_block("plan")])
    assert answer.stop_reason == "cancelled"
    assert len(client.permissions) == 2 and len(fake.requests) == 2
    assert "keep planning" in json.dumps(fake.requests[1].body)
    assert "edit_file" not in tool_names(fake, 1)
    assert _modes(client) == ["plan"]  # the client's own switch, and nothing since


async def test_a_prompt_sent_while_a_run_works_steers_it(
    isolated_state: Path, workspace: Path, fake: FakeAnthropic
) -> None:
    fake.add(
        turn(tool_calls=[("toolu_w", "run_command", {"command": RELEASE_COMMAND})]),
        turn("Using pathlib."),
    )
    client = RecordingClient(answers=["allow_once"])
    async with agent(client, MODEL, workspace, env=anthropic_env(fake)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        sid = session.session_id
        first = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("wait")]))
        # The command runs (the call was let through): the run is in a tool call.
        await client.wait_for(lambda: _in_progress(client.updates, "toolu_w"))
        second = asyncio.ensure_future(
            conn.prompt(session_id=sid, prompt=[text_block("use pathlib instead")])
        )
        await _answered_after(conn, workspace)
        await _logged(isolated_state, "use pathlib instead", wanted=False)
        (workspace / "release").touch()
        answers = await asyncio.wait_for(asyncio.gather(first, second), 60)
    assert [a.stop_reason for a in answers] == ["end_turn", "end_turn"]
    assert len(fake.requests) == 2  # one run: the second prompt went to it
    last = fake.requests[1].body["messages"][-1]
    assert [b["type"] for b in last["content"]] == ["tool_result", "text"]
    assert last["content"][1]["text"] == "use pathlib instead"
    await _logged(isolated_state, "use pathlib instead", wanted=True)


async def test_cancel_ends_a_steered_run_and_both_prompts(
    isolated_state: Path, workspace: Path, fake: FakeAnthropic
) -> None:
    fake.add(turn(tool_calls=[("toolu_w", "run_command", {"command": RELEASE_COMMAND})]))
    client = RecordingClient(answers=["allow_once"])
    async with agent(client, MODEL, workspace, env=anthropic_env(fake)) as (conn, _):
        session = await conn.new_session(cwd=str(workspace), mcp_servers=[])
        sid = session.session_id
        first = asyncio.create_task(conn.prompt(session_id=sid, prompt=[text_block("wait")]))
        await client.wait_for(lambda: _in_progress(client.updates, "toolu_w"))
        second = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=[text_block("hm")]))
        await _answered_after(conn, workspace)
        await conn.cancel(session_id=sid)
        answers = await asyncio.wait_for(asyncio.gather(first, second), 30)
    assert [a.stop_reason for a in answers] == ["cancelled", "cancelled"]
    assert len(fake.requests) == 1


async def _answered_after(conn: Any, workspace: Path) -> None:
    """A request sent after the one just scheduled, answered: the agent handles requests
    in the order they arrive, and queues a text prompt for a running run at once."""
    await asyncio.ensure_future(conn.list_sessions(cwd=str(workspace)))


def _modes(client: RecordingClient) -> list[str]:
    updates = client.updates
    return [u["currentModeId"] for u in updates if u["sessionUpdate"] == "current_mode_update"]


def _in_progress(updates: list[dict[str, Any]], call_id: str) -> bool:
    return any(
        u["sessionUpdate"] == "tool_call_update"
        and u["toolCallId"] == call_id
        and u.get("status") == "in_progress"
        for u in updates
    )


async def _logged(state: Path, text: str, *, wanted: bool) -> None:
    """The session log has (or has not yet) a `steered` event for ``text``."""
    (path,) = sorted((state / "sessions").glob("*.jsonl"))
    events = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    steered = [e["text"] for e in events if e["kind"] == "steered"]
    assert (text in steered) is wanted, steered
