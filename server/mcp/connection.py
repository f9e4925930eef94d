"""One MCP server: started when first needed, restarted once after a crash, bounded in time.

Its `Lifecycle` (`agentls.supervision`) decides when it starts and when it is
given up on; this is the `Child` it drives. The transport and the ClientSession
are entered and left by one task per start (`_serve`): anyio's scopes must be
left by the task that entered them, and a crash or a stop then unwinds them in
order (the SDK's stdio shutdown kills the server's process group). Calls come
from other tasks and go through the session that task keeps open.
"""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import IO, Any, Literal, TextIO, cast

import anyio
import httpx2
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import (
    CONNECTION_CLOSED,
    REQUEST_TIMEOUT,
    CallToolResult,
    Implementation,
    PaginatedRequestParams,
    Tool,
)

from agentls import __version__
from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.contracts.waiting import within
from agentls.mcp.config import McpServerConfig, expand
from agentls.supervision import ChildFailed, Event, Lifecycle, State

log = logging.getLogger(__name__)

Status = Literal["stopped", "starting", "ready", "failed"]
_STATUS: dict[State, Status] = {
    "stopped": "stopped", "starting": "starting", "running": "ready", "failed": "failed",
}  # fmt: skip
MAX_TOOL_PAGES = 20
STDERR_TAIL_CHARS = 600
STDERR_KEEP_BYTES = 1 << 20  # a chatty server's stderr file is emptied past this
STOP_GRACE_SECONDS = 8.0  # the SDK's own shutdown waits at most about 6 s
CLIENT_INFO = Implementation(name="agentls", version=__version__)
_CLOSED = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream)

Streams = tuple[Any, Any]


class McpConnection:
    def __init__(
        self, name: str, config: McpServerConfig, root: Path, notify: Callable[[str], None]
    ) -> None:
        self.name = name
        self.config = config
        self.root = root
        self.notify = notify
        self.tools: list[Tool] = []
        self.lifecycle = Lifecycle(self)
        self.lifecycle.watch(self._told)
        self._session: ClientSession | None = None
        self._task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._stderr: IO[str] | None = None

    @property
    def status(self) -> Status:
        return _STATUS[self.lifecycle.status().state]

    @property
    def error(self) -> str | None:
        return self.lifecycle.failure

    @property
    def restarts(self) -> int:
        return self.lifecycle.restarts

    @property
    def generation(self) -> int:
        """One per start: tool definitions and crash handling key on it."""
        return self.lifecycle.generation

    def _told(self, event: Event, detail: str) -> None:
        if event == "start failed":
            self.notify(
                f"MCP server {self.name!r} failed to start: {detail}. Its tools are left out; "
                "everything else works on."
            )
        elif event == "restarting":
            self.notify(f"MCP server {self.name!r} crashed {detail}; restarting it.")
        elif event == "given up":
            self.notify(
                f"MCP server {self.name!r} crashed again {detail}; it was restarted once "
                "already, so its tools are left out from now on."
            )

    # --- starting and stopping ----------------------------------------------

    async def ready(self) -> bool:
        """Running with its tools listed (started if need be); False when it failed."""
        try:
            await self.lifecycle.ensure()
        except ChildFailed:
            return False
        return True

    async def stop(self) -> None:
        """Stop the server (bounded); it may be started again."""
        await self.lifecycle.stop()

    def reset(self) -> None:
        """Forget a failure and the restart used, so the next use starts it afresh."""
        self.lifecycle.reset()

    # --- the Child its lifecycle drives ----------------------------------------

    @property
    def alive(self) -> bool:
        task = self._task
        return self._session is not None and task is not None and not task.done()

    async def launch(self) -> None:
        await self._halt()  # what an earlier run left
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[str | None] = loop.create_future()  # why it failed, or None
        stop = asyncio.Event()
        self._stop = stop
        self._task = loop.create_task(
            self._serve(self.lifecycle.generation, ready, stop), name=f"mcp server {self.name}"
        )
        bound = self.config.start_timeout_seconds + self.config.list_timeout_seconds + 5
        try:
            failure = await within(asyncio.shield(ready), bound)
        except TimeoutError:  # a backstop: _serve bounds each of its own steps
            failure = self._with_stderr(f"did not start within {bound:g} s")
        if failure is not None:
            raise ChildFailed(failure)

    async def halt(self) -> None:
        await self._halt()

    def kill(self) -> None:
        return None  # without a loop the task holding its process group is gone with it

    def gave_up(self, when: str) -> str:
        return f"crashed again ({when}) after one restart"

    async def _serve(
        self, generation: int, ready: asyncio.Future[str | None], stop: asyncio.Event
    ) -> None:
        # The server's stderr goes to a file (never our stdout, which may carry LSP):
        # its last lines explain a failed start.
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as stderr:
            self._stderr = stderr
            try:
                async with AsyncExitStack() as stack:
                    session = await self._open(stack, stderr)
                    if isinstance(session, str):  # its last stderr lines explain it
                        ready.set_result(self._with_stderr(session))
                        return
                    self._session = session
                    ready.set_result(None)
                    await stop.wait()
            except asyncio.CancelledError:
                pass  # stopped: the exit stack has closed the transport
            except Exception as exc:  # the transport broke (an HTTP server not there, say)
                if not ready.done():
                    ready.set_result(self._with_stderr(_describe(exc)))
                else:
                    log.warning("MCP server %s: the connection ended: %r", self.name, exc)
            finally:
                if generation == self.generation:
                    self._session = None
                if not stop.is_set():  # the session ended on its own
                    self.lifecycle.lost(generation, "while idle")
                if not ready.done():
                    ready.set_result("stopped while starting")

    async def _open(self, stack: AsyncExitStack, stderr: IO[str]) -> ClientSession | str:
        """Connect, initialize and list the tools, each step bounded; else why it could not
        (returned, not raised: the transport's task groups would wrap it)."""
        config = self.config
        stage = "start"
        try:
            read, write = await stack.enter_async_context(self._transport(stderr))
            session = await stack.enter_async_context(
                ClientSession(read, write, client_info=CLIENT_INFO)
            )
            async with asyncio.timeout(config.start_timeout_seconds):
                await session.initialize()
            stage = "list"
            async with asyncio.timeout(config.list_timeout_seconds):
                self.tools = await _list_tools(session)
            return session
        except TimeoutError:
            if stage == "start":
                why = f"did not answer `initialize` within {config.start_timeout_seconds:g} s"
            else:
                why = f"did not list its tools within {config.list_timeout_seconds:g} s"
        except KeyError as exc:
            why = f"its settings use ${{{exc.args[0]}}}, which is not set"
        except OSError as exc:
            why = f"cannot run `{config.command}`: {exc.strerror or exc}"
        except (MCPError, *_CLOSED) as exc:
            why = f"the connection closed during start-up ({_reason(exc)})"
        except Exception as exc:  # whatever a broken server or transport raises
            why = _describe(exc)
        return why

    @asynccontextmanager
    async def _transport(self, stderr: IO[str]) -> AsyncIterator[Streams]:
        config = self.config
        if config.command is not None:
            cwd = self.root / expand(config.cwd) if config.cwd else self.root
            params = StdioServerParameters(
                command=expand(config.command),
                args=[expand(a) for a in config.args],
                env={k: expand(v) for k, v in config.env.items()},
                cwd=cwd,
            )
            async with stdio_client(params, errlog=cast(TextIO, stderr)) as streams:
                yield streams
            return
        headers = {k: expand(v) for k, v in config.headers.items()}
        timeout = httpx2.Timeout(config.start_timeout_seconds, read=300.0)
        async with (
            httpx2.AsyncClient(headers=headers, timeout=timeout) as client,
            streamable_http_client(expand(config.url or ""), http_client=client) as streams,
        ):
            yield streams

    async def _halt(self) -> None:
        task, stop, opened = self._task, self._stop, self._session is not None
        self._session = None
        if stop is not None:
            stop.set()
        if task is None or task.done():
            return
        if not opened:  # in its handshake: `stop` is heard only once it is ready
            task.cancel()
        done, _ = await asyncio.wait([task], timeout=STOP_GRACE_SECONDS)
        if not done:
            task.cancel()
            await asyncio.wait([task], timeout=STOP_GRACE_SECONDS)

    def _with_stderr(self, why: str) -> str:
        tail = self.stderr_tail()
        return why + (f"; its stderr ends: {tail}" if tail else "")

    def _trim_stderr(self) -> None:
        # Truncating under a writer leaves a sparse file: the disk keeps only new lines.
        fd = self._stderr_fd()
        try:
            if fd is not None and os.fstat(fd).st_size > STDERR_KEEP_BYTES:
                os.ftruncate(fd, 0)
        except OSError:
            pass

    def stderr_tail(self) -> str:
        """The server's last stderr lines, read without moving the offset it writes at."""
        fd = self._stderr_fd()
        if fd is None:
            return ""
        try:
            size = os.fstat(fd).st_size
            data = os.pread(fd, STDERR_TAIL_CHARS * 4, max(0, size - STDERR_TAIL_CHARS * 4))
        except OSError:
            return ""
        text = data.replace(b"\x00", b"").decode("utf-8", "replace")  # a trim leaves a hole
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return " | ".join(lines)[-STDERR_TAIL_CHARS:]

    def _stderr_fd(self) -> int | None:
        stream = self._stderr
        return None if stream is None or stream.closed else stream.fileno()

    # --- calls ----------------------------------------------------------------

    async def call(self, tool: str, arguments: dict[str, Any]) -> CallToolResult:
        """One tools/call; ToolError for a timeout, a crash or a server that is down."""
        if not await self.ready():
            raise ToolError(
                ErrorCode.EXECUTION_FAILED,
                f"MCP server {self.name!r} is not running ({self.error}); its tools cannot be used",
            )
        session, generation = self._session, self.generation
        if session is None:  # stopped between ready() and here
            raise ToolError(ErrorCode.EXECUTION_FAILED, f"MCP server {self.name!r} was stopped")
        limit = self.config.call_timeout_seconds
        self._trim_stderr()
        try:
            result = await session.call_tool(tool, arguments, read_timeout_seconds=limit)
        except MCPError as exc:
            if exc.code == REQUEST_TIMEOUT:
                raise ToolError(
                    ErrorCode.TIMEOUT,
                    f"{tool} on MCP server {self.name!r} did not answer within {limit:g} s",
                    retryable=True,
                ) from None
            if exc.code == CONNECTION_CLOSED:
                raise await self._crashed(generation, tool) from None
            raise ToolError(
                ErrorCode.EXECUTION_FAILED,
                f"MCP server {self.name!r} refused the call to {tool}: {exc.message}",
            ) from None
        except _CLOSED:
            raise await self._crashed(generation, tool) from None
        except (RuntimeError, ValueError) as exc:  # the SDK found the answer malformed
            raise ToolError(
                ErrorCode.EXECUTION_FAILED,
                f"MCP server {self.name!r} gave an answer that cannot be read: {exc}",
            ) from None
        if not isinstance(result, CallToolResult):
            raise ToolError(ErrorCode.EXECUTION_FAILED, f"{tool} gave no tool result")
        return result

    async def _crashed(self, generation: int, tool: str) -> ToolError:
        """The connection closed under a call: restart once, then leave the server out."""
        if generation != self.generation or self.lifecycle.state != "running":
            return ToolError(
                ErrorCode.EXECUTION_FAILED,
                f"MCP server {self.name!r} went away while running {tool}",
                retryable=self.lifecycle.state != "failed",
            )
        tail = self.stderr_tail()
        said = f" (its stderr ends: {tail})" if tail else ""
        self.lifecycle.lost(generation, f"while running {tool}")
        await self._halt()
        if not self.lifecycle.failed:  # started again on the next call
            return ToolError(
                ErrorCode.EXECUTION_FAILED,
                f"the MCP server {self.name!r} crashed while running {tool}{said}. agentls "
                "restarts it once, so a later call may work.",
                retryable=True,
            )
        return ToolError(
            ErrorCode.EXECUTION_FAILED,
            f"the MCP server {self.name!r} crashed again while running {tool}{said}; it was "
            "restarted once already, so its tools are no longer available.",
        )


async def _list_tools(session: ClientSession) -> list[Tool]:
    tools: list[Tool] = []
    cursor: str | None = None
    for _ in range(MAX_TOOL_PAGES):
        params = PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


def _describe(exc: BaseException) -> str:
    """The first real error inside the SDK's exception groups, in a line."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return f"{type(exc).__name__}: {exc}"


def _reason(exc: BaseException) -> str:
    if isinstance(exc, MCPError):
        return exc.message
    return type(exc).__name__
