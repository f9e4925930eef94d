"""What precedes an effect is in the session log file before the effect starts: a tool
finds its own call and decision there, the model finds the request and the last results.
(The loop stages some lines to write a turn in two writes; this is what that must keep.)"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from agentls.contracts.model_io import ModelInput
from agentls.contracts.tooling import Risk, ToolOutput
from agentls.permissions.approvers import AutoApprover
from agentls.providers.scripted import ScriptedProvider
from agentls.workspace.interface import ToolContext, ToolDefinition
from tests.unit.context.helpers import Recording
from tests.unit.helpers import EchoInput, call, conversation


def kinds_on_disk(path: Path) -> list[tuple[str, str | None]]:
    lines = [json.loads(line) for line in path.read_bytes().splitlines()]
    return [(line["kind"], line.get("callId")) for line in lines]


class LogPath:
    path: Path | None = None

    def kinds(self) -> list[tuple[str, str | None]]:
        assert self.path is not None
        return kinds_on_disk(self.path)


class PeekingModel(Recording):
    """The scripted model, looking at the log file as each request starts."""

    def __init__(self, inner: ScriptedProvider, log: LogPath) -> None:
        super().__init__(inner)
        self.log = log
        self.seen_on_disk: list[list[tuple[str, str | None]]] = []

    def seen(self, request: ModelInput) -> None:
        self.seen_on_disk.append(self.log.kinds())


def test_each_effect_finds_what_came_before_it_on_disk(tmp_path: Path) -> None:
    log = LogPath()
    seen_by_tool: list[list[tuple[str, str | None]]] = []

    async def peek(args: EchoInput, ctx: ToolContext) -> ToolOutput:
        seen_by_tool.append(log.kinds())
        return ToolOutput("peeked")

    text = lambda a: a.text  # noqa: E731
    tool = ToolDefinition("peek", "Peek.", EchoInput, Risk.READ, peek, "none", text, text)
    turns = [
        {"toolCalls": [call("peek", "c1", text="one")]},
        {"toolCalls": [call("peek", "c2", text="two")]},
        {"text": "done"},
    ]
    conv, scripted, _ = conversation(tmp_path, turns, tools=[tool])
    model = PeekingModel(scripted, log)
    conv.provider = model
    log.path = conv.log.path

    result = asyncio.run(conv.ask("peek twice", approver=AutoApprover()))
    assert result.text == "done"

    # The model request is on disk before the model is asked, after the prompt or results.
    first, second, third = model.seen_on_disk
    assert first[-2:] == [("user_message", None), ("model_request", None)]
    assert second[-3:] == [("observation", "c1"), ("tool_results", None), ("model_request", None)]
    assert third[-3:] == [("observation", "c2"), ("tool_results", None), ("model_request", None)]
    # A tool's call and its decision are on disk before it runs, after the model's output.
    for call_id, seen in zip(("c1", "c2"), seen_by_tool, strict=True):
        assert seen[-4:] == [
            ("usage", None), ("model_output", None), ("tool_intent", call_id), ("decision", call_id)
        ]  # fmt: skip
    # And everything is there at the end, in order.
    assert [kind for kind, _ in log.kinds()][-3:] == ["usage", "model_output", "run_finished"]
