"""MCP servers in the language server: started only when needed, `agentls.mcp`, a run that
uses an MCP tool after the editor's approval, and a broken server reported in the editor."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.e2e.lsp.conftest import EditorFactory
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.fakes.mcp_server import stdio_config
from tests.helpers import tool_result_text

MODEL = "anthropic:claude-sonnet-4-5"


def options(tmp_path: Path, **more: Any) -> dict[str, Any]:
    marker = str(tmp_path / "starts.txt")
    servers = {"test": stdio_config(env={"MCP_FAKE_MARKER": marker}),
               "broken": {"command": "agentls-no-such-server"}}  # fmt: skip
    return {"model": MODEL, "mcpServers": servers, **more}


async def test_servers_start_when_needed_and_agentls_mcp_lists_them(
    open_editor: EditorFactory, tmp_path: Path, root: Path
) -> None:
    marker = tmp_path / "starts.txt"
    editor = await open_editor(init_options=options(tmp_path))
    known = await editor.command("agentls.mcp", {"start": False})
    assert {(s["name"], s["status"]) for s in known} == {("test", "stopped"), ("broken", "stopped")}
    assert not marker.exists()  # nothing started with the language server
    listed = await editor.command("agentls.mcp")
    by_name = {s["name"]: s for s in listed}
    test, broken = by_name["test"], by_name["broken"]
    assert (
        test["workspace"] == str(root)
        and test["status"] == "ready"
        and test["transport"] == "stdio"
    )
    add = next(t for t in test["tools"] if t["name"] == "mcp__test__add")
    assert add == {"name": "mcp__test__add", "serverName": "add",
                   "description": "Add two integers.", "readOnly": True}  # fmt: skip
    assert broken["status"] == "failed"
    assert broken["error"] == "cannot run `agentls-no-such-server`: No such file or directory"
    message = await editor.wait_for_message("MCP server 'broken' failed to start")
    assert "Its tools are left out" in message
    assert len(marker.read_text().splitlines()) == 1
    again = await editor.command("agentls.mcp", {"restart": True})  # only failed ones restart
    assert {s["name"]: s["status"] for s in again} == {"test": "ready", "broken": "failed"}
    assert len(marker.read_text().splitlines()) == 1


async def test_a_run_calls_an_mcp_tool_after_the_editors_approval(
    open_editor: EditorFactory, fake: FakeAnthropic, tmp_path: Path
) -> None:
    editor = await open_editor(init_options=options(tmp_path))
    editor.answers = ["Allow once"]
    fake.add(
        turn("Adding.", tool_calls=[("toolu_1", "mcp__test__add", {"a": 40, "b": 2})]),
        turn("It is 42."),
    )
    result = await editor.ask("add 40 and 2", wait=True)
    assert result["terminalReason"] == "completed" and result["text"] == "It is 42."
    assert "the sum is 42" in tool_result_text(fake, 1)
    tools = {t["name"]: t for t in fake.requests[0].body["tools"]}
    assert tools["mcp__test__add"]["input_schema"]["required"] == ["a", "b"]
    assert not any(name.startswith("mcp__broken__") for name in tools)
    (prompt,) = editor.prompts
    assert "mcp__test__add" in prompt.message
    finished = next(e for e in editor.events if e["kind"] == "tool_finished")
    assert finished["name"] == "mcp__test__add" and finished["ok"]
    await editor.wait_for_message("MCP server 'broken' failed to start")


async def test_bad_mcp_settings_are_reported_not_fatal(
    open_editor: EditorFactory, tmp_path: Path
) -> None:
    editor = await open_editor(
        init_options={"model": MODEL, "mcpServers": {"s": {"command": "x", "url": "http://y"}}}
    )
    message = await editor.wait_for_message("bad settings")
    assert "mcpServers.s" in message and "give either command" in message
    assert await editor.command("agentls.mcp") == []  # the previous (default) settings hold
