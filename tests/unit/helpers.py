"""Test tools and a builder for conversations driven by the scripted model."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agentls.contracts.tooling import ErrorCode, Risk, ToolError, ToolOutput
from agentls.conversation.one_session import Conversation
from agentls.conversation.open_sessions import ConversationManager
from agentls.conversation.settings import load_settings
from agentls.providers.scripted import ScriptedProvider
from agentls.session.events import SessionEvent
from agentls.session.reader import read_events
from agentls.session.store import SessionStore
from agentls.workspace.interface import ToolContext, ToolDefinition
from agentls.workspace.local import LocalWorkspace


class EchoInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(description="what to echo")


class WaitInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(description="which gate to wait at")


class Gates:
    """Events a test can watch and release, so concurrency is checked without sleeps."""

    def __init__(self) -> None:
        self.entered: dict[str, asyncio.Event] = {}
        self.release: dict[str, asyncio.Event] = {}
        self.log: list[str] = []

    def pair(self, name: str) -> tuple[asyncio.Event, asyncio.Event]:
        return (
            self.entered.setdefault(name, asyncio.Event()),
            self.release.setdefault(name, asyncio.Event()),
        )


def make_tools(gates: Gates) -> list[ToolDefinition[Any]]:
    async def echo(args: EchoInput, ctx: ToolContext) -> ToolOutput:
        gates.log.append(f"echo:{args.text}")
        return ToolOutput(f"echo: {args.text}")

    async def wait(args: WaitInput, ctx: ToolContext) -> ToolOutput:
        entered, release = gates.pair(args.name)
        gates.log.append(f"enter:{args.name}")
        entered.set()
        await release.wait()
        gates.log.append(f"leave:{args.name}")
        return ToolOutput(f"passed {args.name}")

    async def explode(args: EchoInput, ctx: ToolContext) -> ToolOutput:
        raise RuntimeError(f"boom {args.text}")

    async def fail(args: EchoInput, ctx: ToolContext) -> ToolOutput:
        raise ToolError(ErrorCode.EXECUTION_FAILED, f"failed {args.text}")

    def text(args: Any) -> str:
        return str(getattr(args, "text", getattr(args, "name", "")))

    return [
        ToolDefinition("echo", "Echo text.", EchoInput, Risk.READ, echo, "none", text, text),
        ToolDefinition("wait_read", "Wait (read).", WaitInput, Risk.READ, wait, "none", text, text),
        ToolDefinition(
            "wait_write", "Wait (write).", WaitInput, Risk.WRITE, wait, "path", text, text
        ),
        ToolDefinition("explode", "Crash.", EchoInput, Risk.READ, explode, "none", text, text),
        ToolDefinition("fail", "Fail.", EchoInput, Risk.READ, fail, "none", text, text),
        ToolDefinition(
            "shout", "Echo loudly (execute).", EchoInput, Risk.EXECUTE, echo, "command", text, text
        ),
    ]


def conversation(
    tmp_path: Path,
    turns: Sequence[dict[str, Any]],
    *,
    tools: Sequence[ToolDefinition[Any]] | None = None,
    settings: dict[str, Any] | None = None,
    session_id: str | None = None,
) -> tuple[Conversation, ScriptedProvider, ConversationManager]:
    workspace_dir = tmp_path / "ws"
    workspace_dir.mkdir(exist_ok=True)
    provider = ScriptedProvider(turns)
    kwargs: dict[str, Any] = {"provider_factory": lambda settings: provider}
    if tools is not None:
        kwargs["tools"] = tools
    manager = ConversationManager(SessionStore(tmp_path / "state"), **kwargs)
    merged = {"model": "scripted:test", **(settings or {})}
    conv = manager.open(LocalWorkspace(workspace_dir), load_settings(merged), session_id)
    return conv, provider, manager


def one_session_twice(
    tmp_path: Path, answers: Sequence[str]
) -> tuple[Conversation, Conversation, ScriptedProvider]:
    """One session open in two managers, as two processes hold it (the first answers
    "first done"); the second's model gives ``answers``."""
    first, _, _ = conversation(tmp_path, [{"text": "first done"}])
    provider = ScriptedProvider([{"text": text} for text in answers])
    store = SessionStore(tmp_path / "state")
    other = ConversationManager(store, provider_factory=lambda s: provider)
    settings = load_settings({"model": "scripted:test"})
    second = other.open(LocalWorkspace(tmp_path / "ws"), settings, first.session_id)
    return first, second, provider


def events_of(conv: Conversation) -> list[SessionEvent]:
    """The session's events as its log holds them (written out first)."""
    conv.log.sync()
    return read_events(conv.log.path)


def call(tool: str, call_id: str | None = None, /, **inputs: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"name": tool, "input": inputs}
    if call_id:
        out["id"] = call_id
    return out


def reads_while_two_write(
    write: Callable[[], object], read: Callable[[], str], times: int
) -> list[str]:
    """``times`` reads taken while two threads call ``write`` over and over."""
    import threading

    stop = threading.Event()

    def keep_writing() -> None:
        while not stop.is_set():
            write()

    writers = [threading.Thread(target=keep_writing) for _ in range(2)]
    for writer in writers:
        writer.start()
    try:
        return [read() for _ in range(times)]
    finally:
        stop.set()
        for writer in writers:
            writer.join()
