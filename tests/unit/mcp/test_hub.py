"""The hub against a real MCP server (the SDK's, over stdio and HTTP): lazy starts,
timeouts, one restart after a crash, clear failures, settings changes, stopping."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.mcp.hub import McpHub
from agentls.workspace.interface import ToolContext, ToolDefinition
from tests.fakes.mcp_server import HERE, stdio_config
from tests.helpers import free_port, until
from tests.processes import process_alive
from tests.unit.mcp.conftest import Told, servers, starts


async def call(tools: list[ToolDefinition[Any]], tool_name: str, /, **arguments: Any) -> str:
    tool = next(t for t in tools if t.name == tool_name)
    args = tool.input_model.model_validate(arguments)
    output = await tool.run(args, ToolContext(workspace=None))  # type: ignore[arg-type]
    return output.text


async def test_servers_start_only_when_their_tools_are_needed(
    hub: McpHub, tmp_path: Path, marker: Path
) -> None:
    config = servers({"test": stdio_config(env={"MCP_FAKE_MARKER": str(marker)})})
    (connection,) = hub.connections(tmp_path, config)
    assert connection.status == "stopped" and starts(marker) == 0
    tools = await hub.tools(tmp_path, config)
    assert starts(marker) == 1 and connection.status == "ready"
    assert "mcp__test__add" in [t.name for t in tools]
    assert await call(tools, "mcp__test__add", a=2, b=3) == "the sum is 5"
    await hub.tools(tmp_path, config)  # a second run reuses the running server
    assert starts(marker) == 1


async def test_a_crash_restarts_once_and_a_second_crash_leaves_the_server_out(
    hub: McpHub, tmp_path: Path, marker: Path, told: Told
) -> None:
    config = servers({"test": stdio_config(env={"MCP_FAKE_MARKER": str(marker)})})
    tools = await hub.tools(tmp_path, config)
    first_pid = int(await call(tools, "mcp__test__pid"))
    with pytest.raises(ToolError) as crashed:
        await call(tools, "mcp__test__crash")
    assert crashed.value.code is ErrorCode.EXECUTION_FAILED and crashed.value.retryable
    assert "crashed while running crash" in str(crashed.value)
    assert "crashing on purpose" in str(crashed.value)  # the server's last words
    assert any("restarting it" in note for note in told)
    second_pid = int(await call(tools, "mcp__test__pid"))
    assert second_pid != first_pid and starts(marker) == 2
    await until(lambda: not process_alive(first_pid), "the crashed server is gone", timeout=15)
    with pytest.raises(ToolError, match="crashed again") as again:
        await call(tools, "mcp__test__crash")
    assert not again.value.retryable
    with pytest.raises(ToolError, match="is not running"):
        await call(tools, "mcp__test__add", a=1, b=1)
    assert await hub.tools(tmp_path, config) == []  # left out from now on
    assert starts(marker) == 2
    assert any("left out from now on" in note for note in told)
    report = (await hub.report(tmp_path, config))[0]
    assert (
        report.status == "failed"
        and report.restarts == 1
        and "crashed again" in (report.error or "")
    )
    hub.reset_failed(tmp_path)  # agentls.mcp {"restart": true}
    assert [t.name for t in await hub.tools(tmp_path, config)][:1] == ["mcp__test__add"]
    assert starts(marker) == 3


async def test_a_call_that_never_answers_times_out_and_the_server_goes_on(
    hub: McpHub, tmp_path: Path
) -> None:
    config = servers({"test": stdio_config(callTimeoutSeconds=0.5)})
    tools = await hub.tools(tmp_path, config)
    pid = await call(tools, "mcp__test__pid")
    started = time.monotonic()
    with pytest.raises(ToolError) as caught:
        await call(tools, "mcp__test__hang")
    assert time.monotonic() - started < 5
    assert caught.value.code is ErrorCode.TIMEOUT and caught.value.retryable
    assert "did not answer within 0.5 s" in str(caught.value)
    assert await call(tools, "mcp__test__pid") == pid  # the same process, still serving


async def test_a_server_that_never_starts_is_bounded_and_left_out(
    hub: McpHub, tmp_path: Path, told: Told
) -> None:
    config = servers({
        "slow": stdio_config("--hang-at-start", startTimeoutSeconds=0.5),
        "test": stdio_config(),
    })  # fmt: skip
    started = time.monotonic()
    tools = await hub.tools(tmp_path, config)
    assert time.monotonic() - started < 15
    assert {t.name.split("__")[1] for t in tools} == {"test"}
    assert any(
        "'slow' failed to start: did not answer `initialize` within 0.5 s" in n for n in told
    )


async def test_failures_at_start_are_explained(hub: McpHub, tmp_path: Path, told: Told) -> None:
    config = servers({
        "missing": {"command": "agentls-no-such-command"},
        "early": stdio_config("--exit-at-start"),
        "unset": stdio_config(env={"TOKEN": "${AGENTLS_TEST_UNSET_VARIABLE}"}),
        "test": stdio_config(),
    })  # fmt: skip
    tools = await hub.tools(tmp_path, config)
    assert {t.name.split("__")[1] for t in tools} == {"test"}
    reports = {r.name: r for r in await hub.report(tmp_path, config)}
    assert reports["missing"].error == (
        "cannot run `agentls-no-such-command`: No such file or directory"
    )
    assert "cannot start (on purpose)" in (reports["early"].error or "")  # its stderr
    assert (
        reports["unset"].error
        == "its settings use ${AGENTLS_TEST_UNSET_VARIABLE}, which is not set"
    )
    assert reports["test"].status == "ready" and len(reports["test"].tools) == 8
    assert len(told) == 3 and all("Its tools are left out" in note for note in told)


async def test_a_settings_change_replaces_the_server(hub: McpHub, tmp_path: Path) -> None:
    before = servers({"test": stdio_config()})
    tools = await hub.tools(tmp_path, before)
    old_pid = int(await call(tools, "mcp__test__pid"))
    after = servers({"test": stdio_config(callTimeoutSeconds=5)})
    new_tools = await hub.tools(tmp_path, after)
    assert int(await call(new_tools, "mcp__test__pid")) != old_pid
    await until(lambda: not process_alive(old_pid), "the old server is stopped", timeout=15)
    assert await hub.tools(tmp_path, servers({})) == []


async def test_closing_the_hub_stops_every_server(told: Told, tmp_path: Path) -> None:
    hub = McpHub(notify=told)
    tools = await hub.tools(tmp_path, servers({"test": stdio_config()}))
    pid = int(await call(tools, "mcp__test__pid"))
    await hub.aclose()
    await until(lambda: not process_alive(pid), "the server is stopped", timeout=15)


async def test_a_chatty_servers_stderr_stays_small(hub: McpHub, tmp_path: Path) -> None:
    tools = await hub.tools(tmp_path, servers({"test": stdio_config()}))
    assert await call(tools, "mcp__test__noisy", kilobytes=1500) == "done"
    (connection,) = hub.connections(tmp_path, servers({"test": stdio_config()}))
    assert connection.stderr_tail().endswith("fake MCP server: last words")
    await call(tools, "mcp__test__pid")  # each call trims a stderr file past 1 MB
    assert connection._stderr is not None
    assert os.fstat(connection._stderr.fileno()).st_blocks * 512 < 64 * 1024
    assert await call(tools, "mcp__test__noisy", kilobytes=1) == "done"
    assert connection.stderr_tail().endswith("fake MCP server: last words")


async def test_streamable_http_with_headers(
    hub: McpHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, str(HERE), "--http", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        await until(lambda: _accepts(port), "the HTTP server listens", timeout=30)
        monkeypatch.setenv("AGENTLS_TEST_TOKEN", "s3cret")
        config = servers({"web": {
            "url": f"http://127.0.0.1:{port}/mcp",
            "headers": {"Authorization": "Bearer ${AGENTLS_TEST_TOKEN}"},
        }})  # fmt: skip
        tools = await hub.tools(tmp_path, config)
        assert await call(tools, "mcp__web__add", a=20, b=22) == "the sum is 42"
        assert await call(tools, "mcp__web__header", name="Authorization") == "Bearer s3cret"
        (report,) = await hub.report(tmp_path, config)
        assert report.transport == "http" and report.target == f"http://127.0.0.1:{port}/mcp"
    finally:
        server.kill()
        server.wait(timeout=10)


async def test_an_http_server_that_is_not_there_is_reported(
    hub: McpHub, tmp_path: Path, told: Told
) -> None:
    config = servers({"gone": {"url": f"http://127.0.0.1:{free_port()}/mcp",
                               "startTimeoutSeconds": 5}})  # fmt: skip
    assert await asyncio.wait_for(hub.tools(tmp_path, config), 30) == []
    (report,) = await hub.report(tmp_path, config, start=False)
    assert report.status == "failed" and report.error
    assert told and "'gone' failed to start" in told[0]


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False
