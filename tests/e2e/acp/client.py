"""An ACP client on the Python SDK's client side, driving `agentls acp` as a subprocess.

It records every session update, answers permission requests from a queue
(an option id, "cancelled", or "error": a JSON-RPC error, as acpx answers when its
prompt is interrupted), and serves fs/* on the real disk when it offers them,
recording each call.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import RequestError, spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    WriteTextFileResponse,
)

from tests.fakes.anthropic_server import FakeAnthropic

AGENTLS = [sys.executable, "-m", "agentls", "acp"]


@dataclass
class RecordingClient:
    offers_fs: bool = True
    answers: list[str] = field(default_factory=list)  # option ids, or "cancelled"
    updates: list[dict[str, Any]] = field(default_factory=list)
    permissions: list[dict[str, Any]] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    writes: list[tuple[str, str]] = field(default_factory=list)
    buffers: dict[str, str] = field(default_factory=dict)  # unsaved editor text by path
    changed: asyncio.Condition = field(default_factory=asyncio.Condition)
    on_permission: Callable[[dict[str, Any]], None] | None = None

    async def _note(self) -> None:
        async with self.changed:
            self.changed.notify_all()

    async def wait_for(self, check: Callable[[], Any], timeout: float = 30) -> Any:
        async with asyncio.timeout(timeout):
            async with self.changed:
                while not (found := check()):
                    await self.changed.wait()
        return found

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update.model_dump(mode="json", by_alias=True, exclude_none=True))
        await self._note()

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        asked = {
            "toolCall": tool_call.model_dump(mode="json", by_alias=True, exclude_none=True),
            "options": [o.model_dump(mode="json", by_alias=True) for o in options],
            "updatesBefore": len(self.updates),  # where the question fell among the updates
        }
        self.permissions.append(asked)
        await self._note()
        if self.on_permission is not None:
            self.on_permission(asked)
        answer = self.answers.pop(0) if self.answers else "reject_once"
        if answer == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        if answer == "error":
            raise RequestError(-32603, "the prompt was interrupted")
        if answer == "wait":  # never answered: the agent must end it on cancel
            await asyncio.Event().wait()
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=answer)
        )

    async def read_text_file(
        self, session_id: str, path: str, **kwargs: Any
    ) -> ReadTextFileResponse:
        self.reads.append(path)
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        return ReadTextFileResponse(content=Path(path).read_text("utf-8"))

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self.writes.append((path, content))
        Path(path).write_text(content, "utf-8")
        await self._note()
        return WriteTextFileResponse()

    def on_connect(self, conn: Any) -> None:
        pass

    # --- what was seen ------------------------------------------------------

    def kinds(self) -> list[str]:
        return [u["sessionUpdate"] for u in self.updates]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(
            u["content"].get("text", "") for u in self.updates if u["sessionUpdate"] == kind
        )

    def tool_updates(self, call_id: str) -> list[dict[str, Any]]:
        return [
            u for u in self.updates
            if u["sessionUpdate"] in ("tool_call", "tool_call_update")
            and u["toolCallId"] == call_id
        ]  # fmt: skip


def session_events(state: Path) -> list[dict[str, Any]]:
    """The events of the one session the agent logged under the state folder STATE."""
    (log,) = (state / "sessions").glob("*.jsonl")
    return [json.loads(line) for line in log.read_text().splitlines()]


def anthropic_env(fake: FakeAnthropic) -> dict[str, str]:
    """What the agent needs to talk to the fake Anthropic API FAKE."""
    return {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake.base_url}


@asynccontextmanager
async def agent(
    client: RecordingClient,
    model: str,
    workspace: Path,
    *extra: str,
    env: dict[str, str] | None = None,
) -> AsyncIterator[tuple[ClientSideConnection, asyncio.subprocess.Process]]:
    # The agent's log goes to a file: a pipe nobody reads would block it when full.
    with open(workspace.parent / "agent-stderr.log", "ab") as log:
        async with spawn_agent_process(
            client, *AGENTLS, "--model", model, *extra, env={**os.environ, **(env or {})},
            cwd=workspace,
            transport_kwargs={"stderr": log.fileno(), "shutdown_timeout": 10.0},
        ) as (conn, process):  # fmt: skip
            yield await _initialized(conn, client), process


async def _initialized(conn: ClientSideConnection, client: RecordingClient) -> ClientSideConnection:
    fs = FileSystemCapabilities(read_text_file=client.offers_fs, write_text_file=client.offers_fs)
    await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities(fs=fs))
    return conn
