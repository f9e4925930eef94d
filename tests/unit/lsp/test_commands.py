"""The `agentls.*` commands' arguments and answers, without an editor: each handler is
called as pygls would call it, and every answer must fit the published schema."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pygls.exceptions import JsonRpcInvalidParams

from agentls.lsp.commands.registration import MODULES
from agentls.lsp.server import AgentServer
from agentls.protocol.commands import COMMANDS
from agentls.session.store import SessionStore
from agentls.session.transcript import write_transcript
from tests.unit.helpers import reads_while_two_write

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[3] / "docs" / "protocol.schema.json").read_text("utf-8")
)
Handler = Callable[..., Any]


class Registry:
    """Stands in for the server at registration: keeps each command's handler."""

    def __init__(self) -> None:
        self.handlers: dict[str, Handler] = {}

    def command(self, name: str) -> Callable[[Handler], Handler]:
        def keep(handler: Handler) -> Handler:
            self.handlers[name] = handler
            return handler

        return keep


@pytest.fixture
def handlers() -> dict[str, Handler]:
    registry: Any = Registry()
    for module in MODULES:
        module.register(registry)
    found: dict[str, Handler] = registry.handlers
    return found


@pytest.fixture
def server(tmp_path: Path) -> AgentServer:
    ready = AgentServer(SessionStore(tmp_path / "state"))
    ready.settings_ready.set()  # no editor to send settings
    return ready


async def call(handler: Handler, server: AgentServer, *args: Any) -> Any:
    answer = handler(server, *args)
    return await answer if hasattr(answer, "__await__") else answer


def fits(command: str, result: Any) -> Any:
    schema = SCHEMA["properties"]["commands"]["properties"][command]["properties"]["result"]
    Draft202012Validator({**schema, "$defs": SCHEMA["$defs"]}).validate(result)
    return result


def test_every_command_of_the_protocol_is_registered(handlers: dict[str, Handler]) -> None:
    assert sorted(handlers) == sorted(COMMANDS)


@pytest.mark.parametrize(
    ("command", "args", "says"),
    [
        ("agentls.ask", ({"prompt": ""},), "agentls.ask: prompt: String should have at least"),
        ("agentls.ask", ({"prompt": "hi", "session": "s1"},), "session: Extra inputs"),
        ("agentls.ask", ("hi",), "agentls.ask takes one object argument"),
        ("agentls.ask", ({"prompt": "hi", "range": {"start": {"line": -1}}},), "range.start"),
        ("agentls.undo", ({"sessionId": "s1", "turn": 0},), "turn: Input should be greater"),
        ("agentls.answer", ({"id": "c1"},), "agentls.answer: answer: Field required"),
        ("agentls.showDiff", ({},), "id: Field required"),
        ("agentls.setMode", ({"sessionId": "s1"},), "mode: Field required"),
        ("agentls.mcp", ({"start": [1]},), "start: Input should be a valid boolean"),
        ("agentls.doctor", ({"folder": "/"},), "folder: Extra inputs"),
        ("agentls.sessions", ({},), "agentls.sessions takes no arguments"),
        # Emacs sends `{}` back as `null`: read as `{}`, so the missing field is named
        ("agentls.ask", (None,), "agentls.ask: prompt: Field required"),
        ("agentls.answer", (None,), "agentls.answer: id: Field required"),
        ("agentls.ask", (None, None), "agentls.ask takes one object argument"),
    ],
)
async def test_arguments_that_do_not_fit_are_invalid_params_naming_the_field(
    handlers: dict[str, Handler], server: AgentServer, command: str, args: Any, says: str
) -> None:
    with pytest.raises(JsonRpcInvalidParams) as raised:
        await call(handlers[command], server, *args)
    assert says in raised.value.message


@pytest.mark.parametrize("args", [(), ({},), (None,)])  # (None,): Emacs's `[{}]`
async def test_cancel_without_a_session_cancels_every_run(
    handlers: dict[str, Handler], server: AgentServer, args: Any
) -> None:
    result = await call(handlers["agentls.cancel"], server, *args)
    assert fits("agentls.cancel", result) == {
        "sessionId": None, "cancelled": False, "sessionIds": []
    }  # fmt: skip


async def test_cancel_of_a_session_that_does_not_run(
    handlers: dict[str, Handler], server: AgentServer
) -> None:
    result = await call(handlers["agentls.cancel"], server, {"sessionId": "s1"})
    assert fits("agentls.cancel", result) == {"sessionId": "s1", "cancelled": False}


async def test_set_mode_names_the_modes_and_answers_the_one_set(
    handlers: dict[str, Handler], server: AgentServer
) -> None:
    with pytest.raises(JsonRpcInvalidParams, match="choose one of: default, accept-edits"):
        await call(handlers["agentls.setMode"], server, {"mode": "yolo"})
    result = await call(handlers["agentls.setMode"], server, {"mode": "plan"})
    assert fits("agentls.setMode", result) == {"mode": "plan", "sessionId": None}


async def test_questions_and_sessions_that_are_not_there(
    handlers: dict[str, Handler], server: AgentServer
) -> None:
    with pytest.raises(JsonRpcInvalidParams, match="no question c9 is waiting"):
        await call(handlers["agentls.answer"], server, {"id": "c9", "answer": "deny"})
    with pytest.raises(JsonRpcInvalidParams, match="no edit review-9 is waiting"):
        await call(handlers["agentls.showDiff"], server, {"id": "review-9"})
    with pytest.raises(JsonRpcInvalidParams, match=r"^agentls: no session 's9' in "):
        await call(handlers["agentls.undo"], server, {"sessionId": "s9"})
    with pytest.raises(JsonRpcInvalidParams, match=r"^agentls: no session 's9' in "):
        await call(handlers["agentls.showTranscript"], server, {"sessionId": "s9"})
    with pytest.raises(JsonRpcInvalidParams, match=r"^agentls: no session 's9' open here$"):
        await call(handlers["agentls.setMode"], server, {"mode": "plan", "sessionId": "s9"})
    with pytest.raises(JsonRpcInvalidParams, match="invalid session id"):
        await call(handlers["agentls.showTranscript"], server, {"sessionId": "../x"})


def test_a_transcript_written_twice_at_once_is_never_read_empty(server: AgentServer) -> None:
    """A run's end and agentls.showTranscript write the same transcript on two threads."""
    from agentls.session import events as ev

    session_id, log = server.store.create(Path("/tmp"), "scripted:demo")
    for turn in range(200):
        log.append(ev.RunStarted(run="r1", turn=turn, prompt=f"prompt {turn} " + "x" * 200))
    log.close()
    text = write_transcript(server.store, session_id).read_text()
    assert "prompt 199" in text
    target = server.store.state_dir / "transcripts" / f"{session_id}.md"
    reads = reads_while_two_write(
        lambda: write_transcript(server.store, session_id), target.read_text, 200
    )
    assert all(read == text for read in reads)
