"""One MCP server: started when first needed, restarted once after a crash, bounded in time.

The transport and the ClientSession are entered and left by one task per
start (`_serve`): anyio's scopes must be left by the task that entered them,
and a crash or a stop then unwinds them in order (the SDK's stdio shutdown
kills the server's process group). Calls come from other tasks and go through
the session that task keeps open.
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

log = logging.getLogger(__name__)

Status = Literal["stopped", "starting", "ready", "failed"]
MAX_RESTARTS = 1  # after a crash; a second crash leaves the server out
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
        self.status: Status = "stopped"
        self.error: str | None = None
        self.tools: list[Tool] = []
        self.restarts = 0
        self.generation = 0  # one per start: tool definitions and crash handling key on it
        self._session: ClientSession | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready: asyncio.Future[None] | None = None
        self._stop: asyncio.Event | None = None
        self._stderr: IO[str] | None = None

    # --- starting and stopping ----------------------------------------------

    def start(self) -> None:
        """Start in the background unless it is starting, running or failed."""
        if self.status != "stopped":
            return
        loop = asyncio.get_running_loop()
        self.status, self.error = "starting", None
        self.generation += 1
        self._ready = loop.create_future()
        self._stop = asyncio.Event()
        self._task = loop.create_task(
            self._serve(self.generation, self._ready, self._stop), name=f"mcp server {self.name}"
        )

    async def ready(self) -> bool:
        """Running with its tools listed (started if need be); False when it failed."""
        self.start()
        if self._ready is not None and not self._ready.done():
            bound = self.config.start_timeout_seconds + self.config.list_timeout_seconds + 5
            try:  # shielded: a waiter's cancellation must not stop the start for others
                await within(asyncio.shield(self._ready), bound)
            except TimeoutError:  # a backstop: _serve bounds each of its own steps
                self._fail(f"did not start within {bound:g} s")
                await self._halt(now=True)
        return self.status == "ready"

    async def _serve(
        self, generation: int, ready: asyncio.Future[None], stop: asyncio.Event
    ) -> None:
        # The server's stderr goes to a file (never our stdout, which may carry LSP):
        # its last lines explain a failed start.
        with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as stderr:
            self._stderr = stderr
            try:
                async with AsyncExitStack() as stack:
                    session = await self._open(stack, stderr)
                    if session is None:
                        return
                    self._session = session
                    self.status = "ready"
                    ready.set_result(None)
                    await stop.wait()
            except asyncio.CancelledError:
                pass  # stopped: the exit stack has closed the transport
            except Exception as exc:  # the transport broke (an HTTP server not there, say)
                if self.status == "starting" and generation == self.generation:
                    self._fail(_describe(exc))
                else:
                    log.warning("MCP server %s: the connection ended: %r", self.name, exc)
            finally:
                if generation == self.generation:
                    self._session = None
                    if self.status == "ready" and not stop.is_set():
                        self._lost("while idle")  # the session ended on its own
                    elif self.status in ("starting", "ready"):
                        self.status = "stopped"
                if not ready.done():
                    ready.set_result(None)

    async def _open(self, stack: AsyncExitStack, stderr: IO[str]) -> ClientSession | None:
        """Connect, initialize and list the tools, each step bounded; None when it failed."""
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
                self._fail(f"did not answer `initialize` within {config.start_timeout_seconds:g} s")
            else:
                self._fail(f"did not list its tools within {config.list_timeout_seconds:g} s")
        except KeyError as exc:
            self._fail(f"its settings use ${{{exc.args[0]}}}, which is not set")
        except OSError as exc:
            self._fail(f"cannot run `{config.command}`: {exc.strerror or exc}")
        except (MCPError, *_CLOSED) as exc:
            self._fail(f"the connection closed during start-up ({_reason(exc)})")
        except Exception as exc:  # whatever a broken server or transport raises
            self._fail(_describe(exc))
        return None

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

    async def stop(self) -> None:
        """Stop the server (bounded); it may be started again."""
        await self._halt()
        if self.status != "failed":
            self.status = "stopped"

    async def _halt(self, *, now: bool = False) -> None:
        task, stop = self._task, self._stop
        self._session = None
        if stop is not None:
            stop.set()
        if task is None or task.done():
            return
        if now or self.status == "starting":  # in its handshake: `stop` is heard only when ready
            task.cancel()
        done, _ = await asyncio.wait([task], timeout=STOP_GRACE_SECONDS)
        if not done:
            task.cancel()
            await asyncio.wait([task], timeout=STOP_GRACE_SECONDS)

    def reset(self) -> None:
        """Forget a failure and the restart used, so the next use starts it afresh."""
        if self.status == "failed":
            self.status, self.error, self.restarts = "stopped", None, 0

    def _fail(self, why: str) -> None:
        tail = self.stderr_tail()
        self.status = "failed"
        self.error = why + (f"; its stderr ends: {tail}" if tail else "")
        self.notify(
            f"MCP server {self.name!r} failed to start: {self.error}. Its tools are left out; "
            "everything else works on."
        )

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
        if generation != self.generation or self.status != "ready":
            return ToolError(
                ErrorCode.EXECUTION_FAILED,
                f"MCP server {self.name!r} went away while running {tool}",
                retryable=self.status != "failed",
            )
        tail = self.stderr_tail()
        said = f" (its stderr ends: {tail})" if tail else ""
        await self._halt()
        if self._lost(f"while running {tool}"):
            self.start()
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

    def _lost(self, when: str) -> bool:
        """Count a crash: True when a restart is left (it is then started on next use)."""
        if self.restarts < MAX_RESTARTS:
            self.restarts += 1
            self.status = "stopped"
            self.notify(f"MCP server {self.name!r} crashed {when}; restarting it.")
            return True
        self.status = "failed"
        self.error = f"crashed again ({when}) after one restart"
        self.notify(
            f"MCP server {self.name!r} crashed again {when}; it was restarted once already, "
            "so its tools are left out from now on."
        )
        return False


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
