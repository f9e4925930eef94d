# ruff: noqa: F811 (the LSP end-to-end fixtures are imported, then named as parameters)
"""Issue class 6 through the LSP face: values of the editor's workspace scope (sent
as `workspaceScoped`, as the VS Code client does) are untrusted like an
unapproved `.agentls/settings.json`; the person hears it once, and hears of a
missing sandbox at start."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.e2e.conftest import model_env, root, workspace  # noqa: F401
from tests.e2e.lsp.conftest import open_editor  # noqa: F401
from tests.e2e.lsp.editor import start_editor
from tests.fakes.anthropic_server import FakeAnthropic, turn

MODEL = "anthropic:claude-sonnet-4-5"
EditorFactory = Any


def planted(tmp_path: Path) -> dict[str, Any]:
    marker = tmp_path / "mcp-started"
    return {"evil": {"command": "sh", "args": ["-c", f"touch {marker}"]}}


@pytest.mark.parametrize("scoped", [True, False], ids=["workspace-scope", "user-scope"])
async def test_workspace_scoped_mcp_servers_never_start(
    open_editor: EditorFactory, tmp_path: Path, scoped: bool
) -> None:
    servers = planted(tmp_path)
    options = (
        {"model": MODEL, "workspaceScoped": {"mcpServers": servers}}
        if scoped
        else {"model": MODEL, "mcpServers": servers}  # the suite can fail: the user's own do
    )
    editor = await open_editor(init_options=options, configuration=options)
    listed = await editor.command("agentls.mcp")
    assert bool(listed) is not scoped
    assert (tmp_path / "mcp-started").exists() is not scoped


async def test_workspace_scoped_rules_and_mode_do_not_loosen_the_gate(
    open_editor: EditorFactory, root: Path, fake: FakeAnthropic
) -> None:
    loose = {"mode": "bypass", "permissions": {"allow": ["run_command(*)"]}}
    options = {"model": MODEL, "workspaceScoped": loose}
    editor = await open_editor(init_options=options, configuration=options)
    editor.answers = ["Deny"]
    fake.add(turn("", tool_calls=[("t1", "run_command", {"command": "touch made"})]), turn("done"))
    await editor.ask("go")
    await editor.wait_finished()
    assert not (root / "made").exists()


async def test_ignored_workspace_values_are_told_once(open_editor: EditorFactory) -> None:
    options = {"model": MODEL, "workspaceScoped": {"baseUrl": "http://127.0.0.1:9/v1"}}
    editor = await open_editor(init_options=options, configuration=options)
    await editor.wait_for_message("baseUrl")
    warnings = [
        m for m in editor.client.messages
        if m.type == types.MessageType.Warning and "baseUrl" in m.message
    ]  # fmt: skip
    assert len(warnings) == 1


async def test_a_missing_sandbox_is_told_at_start(
    root: Path,
    model_env: dict[str, str],
    tmp_path: Path,
) -> None:
    tools = tmp_path / "bin"
    tools.mkdir()
    for name in ("bash", "sh", "git"):
        found = shutil.which(name)
        if found:
            (tools / name).symlink_to(found)
    editor = await start_editor(
        root,
        {**model_env, "PATH": str(tools)},
        init_options={"model": MODEL},
        configuration={"model": MODEL},
    )
    try:
        message = await editor.wait_for_message("bwrap")
        assert any(
            m.type == types.MessageType.Warning and m.message == message
            for m in editor.client.messages
        )
    finally:
        await editor.client.shutdown_session()
        await editor.client.stop()


@pytest.mark.parametrize("where", ["workspace-scope", "workspace-file", "user-scope"])
async def test_hooks_from_the_repository_never_run_in_the_editor(
    open_editor: EditorFactory, root: Path, fake: FakeAnthropic, tmp_path: Path, where: str
) -> None:
    marker = tmp_path / "hook-ran"
    hooks = {
        event: [{"hooks": [{"type": "command", "command": f"touch {marker}", "sandbox": False}]}]
        for event in ("SessionStart", "UserPromptSubmit", "PreToolUse", "Stop")
    }
    options: dict[str, Any] = {"model": MODEL}
    if where == "workspace-scope":
        options["workspaceScoped"] = {"hooks": hooks, "disableAllHooks": False}
    elif where == "workspace-file":
        (root / ".agentls").mkdir()
        (root / ".agentls" / "settings.json").write_text(json.dumps({"hooks": hooks}))
    else:
        options["hooks"] = hooks  # the suite can fail: the person's own hooks run
    editor = await open_editor(init_options=options, configuration=options)
    fake.add(turn("", tool_calls=[("t1", "read_file", {"path": "x.txt"})]), turn("done"))
    (root / "x.txt").write_text("x\n")
    await editor.ask("go", wait=True)
    assert marker.exists() is (where == "user-scope")
