"""Code actions, settings good and bad, and input that must not kill the server."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams
from pytest_lsp import LanguageClient

from tests.e2e.lsp.editor import Editor, start_editor
from tests.fakes.anthropic_server import FakeAnthropic, turn


def code_action_params(uri: str, line: int, diagnostics: list[types.Diagnostic]):
    """The person selected the line's text (without its line end)."""
    return types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=uri),
        range=types.Range(types.Position(line, 0), types.Position(line, 21)),
        context=types.CodeActionContext(diagnostics=diagnostics),
    )


async def test_code_actions_ask_about_diagnostics_and_selection(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    (root / "bad.py").write_text("import os\nprint(undefined_name)\n")
    uri = editor.open("bad.py")
    diagnostic = types.Diagnostic(
        range=types.Range(types.Position(1, 6), types.Position(1, 20)),
        message="undefined name 'undefined_name'",
        source="pyflakes",
    )
    actions = await editor.client.text_document_code_action_async(
        code_action_params(uri, 1, [diagnostic])
    )
    titles = [a.title for a in actions]
    assert titles == [
        "Ask agentls to fix: undefined name 'undefined_name'",
        "Ask agentls about this selection",
    ]
    fix = actions[0]
    assert fix.kind == types.CodeActionKind.QuickFix
    assert fix.command.command == "agentls.ask"
    fake.add(turn("Define it or remove the print."))
    (argument,) = fix.command.arguments
    result = await editor.ask(argument["prompt"], uri=argument["uri"],
                              range=argument["range"], wait=True)  # fmt: skip
    assert result["terminalReason"] == "completed"
    prompt = fake.requests[0].body["messages"][0]["content"][0]["text"]
    assert "undefined name 'undefined_name'" in prompt
    assert "From bad.py, lines 2-2" in prompt and "print(undefined_name)" in prompt


async def test_settings_from_configuration_and_bad_settings(
    open_editor, fake: FakeAnthropic
) -> None:
    editor: Editor = await open_editor(configuration={"maxTurns": 1})
    fake.add(turn(tool_calls=[("toolu_1", "list_files", {})]))
    result = await editor.ask("list", wait=True)
    assert result["terminalReason"] == "max_turns"

    editor.client.set_configuration({"maxTurns": "lots", "mode": "yolo"}, section="agentls")
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    message = await editor.wait_for_message("bad settings")
    assert "maxTurns" in message and "mode" in message and "previous settings" in message
    fake.add(turn(tool_calls=[("toolu_2", "list_files", {})]))
    again = await editor.ask("list", wait=True)
    assert again["terminalReason"] == "max_turns"  # the good settings stayed in force


async def test_an_ask_sent_after_a_settings_change_runs_with_it(
    open_editor, fake: FakeAnthropic
) -> None:
    editor: Editor = await open_editor(configuration={"maxTurns": 3})
    fake.add(turn("ready"))
    await editor.ask("hello", wait=True)
    features = editor.client.protocol.fm.features
    answer_default = features.pop(types.WORKSPACE_CONFIGURATION)
    asked, release = asyncio.Event(), asyncio.Event()

    @editor.client.feature(types.WORKSPACE_CONFIGURATION)
    async def slow_editor(params: types.ConfigurationParams) -> Any:
        asked.set()  # an editor slow to answer: the ask below is already on its way
        await release.wait()
        return answer_default(params)

    editor.client.set_configuration({"maxTurns": 3, "mode": "plan"}, section="agentls")
    editor.client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings=None)
    )
    fake.add(turn("planned"))
    ask = asyncio.ensure_future(editor.ask("plan it", wait=True))
    await asked.wait()
    release.set()
    assert (await ask)["terminalReason"] == "completed"
    shown = [tool["name"] for tool in fake.requests[-1].body["tools"]]
    assert "read_file" in shown and "edit_file" not in shown and "run_command" not in shown


def offered(fake: FakeAnthropic) -> list[str]:
    return [tool["name"] for tool in fake.requests[-1].body["tools"]]


async def test_a_mode_chosen_at_start_outlives_the_settings_refreshes(
    open_editor, fake: FakeAnthropic
) -> None:
    asked, release = asyncio.Event(), asyncio.Event()

    def slow_first_answer(client: LanguageClient) -> None:
        answer = client.protocol.fm.features.pop(types.WORKSPACE_CONFIGURATION)
        calls: list[object] = []

        @client.feature(types.WORKSPACE_CONFIGURATION)
        async def slow_at_start(params: types.ConfigurationParams) -> Any:
            calls.append(params)
            if len(calls) == 1:  # the start-up refresh waits for this editor's answer
                asked.set()
                await release.wait()
            return answer(params)

    editor: Editor = await open_editor(configuration={"maxTurns": 3}, prepare=slow_first_answer)
    await asked.wait()
    choosing = asyncio.ensure_future(editor.command("agentls.setMode", {"mode": "plan"}))
    release.set()
    await choosing
    fake.add(turn("planned"))
    await editor.ask("plan it", wait=True)
    assert "read_file" in offered(fake) and "edit_file" not in offered(fake)

    def change(settings: dict[str, Any]) -> None:
        editor.client.set_configuration(settings, section="agentls")
        editor.client.workspace_did_change_configuration(
            types.DidChangeConfigurationParams(settings=None)
        )

    change({"maxTurns": 4})  # another setting: the chosen mode stands
    fake.add(turn("still planning"))
    await editor.ask("again", wait=True)
    assert "edit_file" not in offered(fake)
    change({"maxTurns": 4, "mode": "default"})  # the mode setting itself: the newer choice
    fake.add(turn("editing"))
    await editor.ask("now edit", wait=True)
    assert "edit_file" in offered(fake)


async def test_bad_command_arguments_are_invalid_params(editor: Editor) -> None:
    for arguments in ([], [{"prompt": ""}], [{"prompt": "x", "bogus": 1}], ["text"],
                      [{"prompt": "x", "range": {"start": {"line": -1}}}]):  # fmt: skip
        with pytest.raises(JsonRpcInvalidParams):
            await editor.command("agentls.ask", *arguments)
    with pytest.raises(JsonRpcInvalidParams, match="no session '20990101-000000-aaaaaa' in "):
        await editor.command("agentls.showTranscript", {"sessionId": "20990101-000000-aaaaaa"})
    with pytest.raises(JsonRpcInvalidParams, match="unknown mode"):
        await editor.command("agentls.setMode", {"mode": "yolo"})
    with pytest.raises(JsonRpcException):
        await editor.command("agentls.nope")


async def test_missing_api_key_is_a_clear_error(root: Path, model_env) -> None:
    env = {k: v for k, v in model_env.items() if k != "ANTHROPIC_API_KEY"}
    editor = await start_editor(root, env, init_options={"model": "anthropic:claude-sonnet-4-5"})
    try:
        with pytest.raises(JsonRpcInvalidParams, match="ANTHROPIC_API_KEY") as raised:
            await editor.ask("hello")
        message = str(raised.value)
        # inside an editor: the `model` setting and where it goes, not the CLI's flag
        assert 'setting `model` to "scripted:demo"' in message and "settings.json" in message
        assert "--model" not in message
    finally:
        await editor.client.shutdown_session()
        await editor.client.stop()


# --- raw JSON-RPC over stdio ------------------------------------------------------------


def frame(payload: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(payload) + payload


async def read_message(reader: asyncio.StreamReader) -> dict:
    length = 0
    while True:
        line = await reader.readline()
        if not line:
            raise EOFError("the server closed its output")
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(await reader.readexactly(length))


async def response_to(reader: asyncio.StreamReader, msg_id: object) -> dict:
    while True:
        message = await asyncio.wait_for(read_message(reader), 10)
        if message.get("id") == msg_id and "method" not in message:
            return message


async def test_malformed_messages_never_kill_the_server(root: Path, model_env) -> None:
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agentls", "serve",
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env={**os.environ, **model_env},
    )  # fmt: skip
    assert server.stdin is not None and server.stdout is not None

    def send(payload: bytes) -> None:
        server.stdin.write(frame(payload))  # type: ignore[union-attr]

    try:
        params = {"capabilities": {}, "rootUri": root.as_uri()}
        send(
            json.dumps(
                {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params}
            ).encode()
        )
        assert "result" in await response_to(server.stdout, 1)
        send(b'{"jsonrpc": "2.0", "method": "initialized", "params": {}}')
        send(b"this is not json")
        assert (await response_to(server.stdout, None))["error"]["code"] == -32700
        send(b'{"jsonrpc": "2.0", "id": 2, "method": "no/such/method", "params": {}}')
        assert (await response_to(server.stdout, 2))["error"]["code"] == -32601
        send(b'{"jsonrpc": "2.0", "id": 3, "method": "textDocument/codeAction", "params": 7}')
        assert "error" in await response_to(server.stdout, 3)
        send(b'{"jsonrpc": "2.0", "id": 4, "method": "workspace/executeCommand", '
             b'"params": {"command": "agentls.ask", "arguments": [{"prompt": 5}]}}')  # fmt: skip
        answer = await response_to(server.stdout, 4)
        assert answer["error"]["code"] == -32602 and "prompt" in answer["error"]["message"]
        send(b'{"jsonrpc": "2.0", "id": 5, "method": "workspace/executeCommand", '
             b'"params": {"command": "agentls.sessions", "arguments": []}}')  # fmt: skip
        assert (await response_to(server.stdout, 5))["result"] == []
        send(b'{"jsonrpc": "2.0", "id": 6, "method": "shutdown"}')
        assert "result" in await response_to(server.stdout, 6)
        send(b'{"jsonrpc": "2.0", "method": "exit"}')
        await server.stdin.drain()
        assert await asyncio.wait_for(server.wait(), 10) == 0
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()


async def test_serve_over_tcp(root: Path, model_env) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agentls", "serve", "--tcp", f"127.0.0.1:{port}",
        stderr=asyncio.subprocess.PIPE, env={**os.environ, **model_env},
    )  # fmt: skip
    try:
        assert server.stderr is not None
        while b"listening on" not in (line := await asyncio.wait_for(server.stderr.readline(), 10)):
            assert line, "the server ended before listening"
        # logged once the socket is bound: the first try connects
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        params = {"capabilities": {}, "rootUri": root.as_uri()}
        payload = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
        writer.write(frame(payload.encode()))
        answer = await response_to(reader, 1)
        assert answer["result"]["serverInfo"]["name"] == "agentls"
        writer.close()
    finally:
        server.kill()
        await server.wait()
