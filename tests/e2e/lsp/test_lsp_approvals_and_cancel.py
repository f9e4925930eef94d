"""Approvals through showMessageRequest, and cancelling a run in all three ways."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled

from tests.e2e.lsp.editor import Editor
from tests.fakes.anthropic_server import FakeAnthropic, stall, turn
from tests.helpers import tool_result_text, until
from tests.processes import processes_with


def command(cmd: str, call_id: str = "toolu_c") -> tuple[str, str, dict]:
    return (call_id, "run_command", {"command": cmd})


async def test_allow_once_runs_the_command(editor: Editor, fake: FakeAnthropic, root: Path) -> None:
    editor.answers = ["Allow once"]
    fake.add(turn(tool_calls=[command("touch made")]), turn("Made it."))
    result = await editor.ask("make a file", wait=True)
    assert result["terminalReason"] == "completed"
    assert (root / "made").exists()
    (prompt,) = editor.prompts
    assert prompt.type == types.MessageType.Warning
    assert "touch made" in prompt.message
    assert [a.title for a in prompt.actions] == ["Allow once", "Always allow", "Deny"]
    kinds = editor.kinds()
    assert kinds.index("approval_asked") < kinds.index("approval_answered")


async def test_always_allow_adds_a_session_rule(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    editor.answers = ["Always allow"]
    fake.add(
        turn(tool_calls=[command("touch one", "toolu_1")]),
        turn(tool_calls=[command("touch one", "toolu_2")]),
        turn("Twice."),
    )
    await editor.ask("touch twice", wait=True)
    assert len(editor.prompts) == 1
    answered = next(e for e in editor.events if e["kind"] == "approval_answered")
    assert answered["rule"] == "run_command(touch one)"


async def test_a_call_no_rule_covers_has_no_always_and_the_next_call_is_asked(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    # An editor that answers "Always allow" anyway (say, the title it saw last time):
    # no rule is made, and the next, different command is asked about.
    editor.answers = ["Always allow", "Allow once"]
    fake.add(
        turn(tool_calls=[command("python3 -c 'print(1)'", "toolu_1")]),
        turn(tool_calls=[command("touch other", "toolu_2")]),
        turn("Done."),
    )
    await editor.ask("two commands", wait=True)
    first, second = editor.prompts
    assert [a.title for a in first.actions] == ["Allow once", "Deny"]
    assert "No rule can cover this call, so it can only be allowed once." in first.message
    assert "touch other" in second.message
    assert (root / "other").exists()
    answered = [e for e in editor.events if e["kind"] == "approval_answered"]
    assert [e["answer"] for e in answered] == ["deny", "allow_once"]


async def test_deny_runs_nothing_and_tells_the_model(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    editor.answers = ["Deny"]
    fake.add(turn(tool_calls=[command("touch nope")]), turn("Not allowed."))
    await editor.ask("make a file", wait=True)
    assert not (root / "nope").exists()
    assert "the person chose Deny" in tool_result_text(fake, 1)


async def test_no_answer_in_time_is_deny(open_editor, fake: FakeAnthropic, root: Path) -> None:
    editor: Editor = await open_editor(configuration={"approvalTimeoutSeconds": 0.3})
    never = asyncio.Event()

    async def ignore(params: types.ShowMessageRequestParams) -> str:
        await never.wait()  # the person never answers
        return "Allow once"

    editor.answers = [ignore]
    fake.add(turn(tool_calls=[command("touch late")]), turn("Gave up."))
    result = await editor.ask("make a file", wait=True)
    assert result["terminalReason"] == "completed"
    assert not (root / "late").exists()
    assert "denied" in tool_result_text(fake, 1)
    never.set()


async def test_a_dismissed_prompt_is_deny(editor: Editor, fake: FakeAnthropic, root: Path) -> None:
    editor.answers = [None]
    fake.add(turn(tool_calls=[command("touch x")]), turn("Ok."))
    await editor.ask("make a file", wait=True)
    assert not (root / "x").exists()
    assert "dismissed" in tool_result_text(fake, 1)


# --- cancellation ---------------------------------------------------------------------

MARKER = "sleep 613.5"


def sleepers() -> list[int]:
    return processes_with(MARKER)


async def start_sleeping_run(editor: Editor, fake: FakeAnthropic, *, wait: bool = False):
    editor.answers = ["Allow once"]
    fake.add(turn(tool_calls=[command(f"{MARKER} & {MARKER}; wait")]))
    request = asyncio.ensure_future(editor.ask("sleep", wait=wait))
    await until(lambda: len(sleepers()) >= 2, "the command's processes")
    return request


async def test_cancel_command(editor: Editor, fake: FakeAnthropic) -> None:
    started = await (await start_sleeping_run(editor, fake))
    answer = await editor.command("agentls.cancel", {"sessionId": started["sessionId"]})
    assert answer["cancelled"] is True
    finished = await editor.wait_finished(timeout=5)
    assert finished["terminalReason"] == "aborted"
    await until(lambda: not sleepers(), "the processes to be gone", timeout=5)


async def test_cancel_request_on_a_waited_ask(editor: Editor, fake: FakeAnthropic) -> None:
    editor.answers = ["Allow once"]
    fake.add(turn(tool_calls=[command(f"{MARKER} & {MARKER}; wait")]))
    params = types.ExecuteCommandParams(
        command="agentls.ask", arguments=[{"prompt": "sleep", "wait": True}]
    )
    # Send the request under a known id, so $/cancelRequest can name it while we
    # still hold the answer's future (the server answers RequestCancelled).
    pending = editor.client.protocol.send_request(
        types.WORKSPACE_EXECUTE_COMMAND, params, msg_id="waited-ask"
    )
    await until(lambda: len(sleepers()) >= 2, "the command's processes")
    editor.client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="waited-ask"))
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(asyncio.wrap_future(pending), 5)
    finished = await editor.wait_finished(timeout=5)
    assert finished["terminalReason"] == "aborted"
    await until(lambda: not sleepers(), "the processes to be gone", timeout=5)
    assert not any("Error" in m.message for m in editor.client.messages)


async def test_cancel_from_the_progress_ui(editor: Editor, fake: FakeAnthropic) -> None:
    await (await start_sleeping_run(editor, fake))
    await until(lambda: any(editor.client.progress_reports.values()), "progress to begin")
    (token,) = editor.client.progress_reports
    editor.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token))
    finished = await editor.wait_finished(timeout=5)
    assert finished["terminalReason"] == "aborted"
    await until(lambda: not sleepers(), "the processes to be gone", timeout=5)


async def test_cancel_while_the_model_is_streaming(editor: Editor, fake: FakeAnthropic) -> None:
    fake.add(stall(30, text="thinking about it"))
    started = await editor.ask("slow")
    await editor.wait_for_event("text")
    await editor.command("agentls.cancel", {"sessionId": started["sessionId"]})
    finished = await editor.wait_finished(timeout=5)
    assert finished["terminalReason"] == "aborted"


async def test_two_sessions_at_once_with_their_own_cancel(
    editor: Editor, fake: FakeAnthropic
) -> None:
    fake.add(stall(30, text="first"), stall(30, text="second"))
    one = await editor.ask("one")
    two = await editor.ask("two")
    assert one["sessionId"] != two["sessionId"]
    await until(lambda: len(fake.requests) == 2, "both model calls")
    # the server keeps answering while both run
    actions = await editor.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=(editor.root / "x.py").as_uri()),
            range=types.Range(types.Position(0, 0), types.Position(0, 0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    assert not actions
    await editor.command("agentls.cancel", {"sessionId": one["sessionId"]})
    first = await editor.wait_finished(timeout=5)
    assert first["sessionId"] == one["sessionId"] and first["terminalReason"] == "aborted"
    running = {s["sessionId"]: s["running"] for s in await editor.command("agentls.sessions")}
    assert running == {one["sessionId"]: False, two["sessionId"]: True}
    await editor.command("agentls.cancel", {"sessionId": two["sessionId"]})
    second = await editor.wait_finished(timeout=5)
    assert second["sessionId"] == two["sessionId"]
    assert os.getpid()  # both ended without stopping the server


async def test_cancelling_during_a_prompt_pops_no_error(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    asked = asyncio.Event()
    release = asyncio.Event()

    async def answer_late(params: types.ShowMessageRequestParams) -> str:
        asked.set()
        await release.wait()
        return "Allow once"

    editor.answers = [answer_late]
    fake.add(turn(tool_calls=[command("touch too-late")]))
    started = await editor.ask("make a file")
    await asyncio.wait_for(asked.wait(), 10)
    await editor.command("agentls.cancel", {"sessionId": started["sessionId"]})
    finished = await editor.wait_finished(timeout=5)
    assert finished["terminalReason"] == "aborted"
    release.set()  # the person answers after the run has ended
    sessions = await editor.command("agentls.sessions")  # the server is fine
    assert sessions[0]["running"] is False
    assert not (root / "too-late").exists()
    assert not any(m.type == types.MessageType.Error for m in editor.client.messages)
