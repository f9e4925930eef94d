"""Settings as the language-server face layers them: initializationOptions, then
workspace/configuration (or what didChangeConfiguration pushed), VS Code's
workspace-scoped values as an untrusted layer, all above the settings files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentls.lsp.files.lsp_workspace import LspWorkspace
from agentls.lsp.lifecycle import refresh_configuration
from agentls.lsp.server import AgentServer
from agentls.session.store import SessionStore

from .fake_editor import FakeEditor


class ConfiguredEditor(FakeEditor):
    """A fake editor that answers workspace/configuration (when it offers it)."""

    def __init__(self, configuration: Any = None, *, offers: bool = True) -> None:
        super().__init__()
        self.configuration_answer = configuration
        self.offers = offers
        self.sections: list[str] = []

    def offers_configuration(self) -> bool:
        return self.offers

    async def configuration(self, section: str) -> Any:
        self.sections.append(section)
        return self.configuration_answer


def server_with(editor: ConfiguredEditor, state: Path, init: Any = None) -> AgentServer:
    server = AgentServer(SessionStore(state))
    server.editor = editor  # type: ignore[assignment]
    server.init_options = init
    return server


async def test_configuration_wins_over_initialization_options(isolated_state: Path) -> None:
    editor = ConfiguredEditor({"agentls": {"maxTurns": 9}})
    server = server_with(editor, isolated_state, {"maxTurns": 5, "approvalsVia": "codeAction"})
    await refresh_configuration(server)
    assert editor.sections == ["agentls"]
    assert server.settings.limits.max_turns == 9
    assert editor.face.approvals_via == "codeAction"  # the face's part, given to the editor


async def test_pushed_settings_count_where_configuration_is_not_offered(
    isolated_state: Path,
) -> None:
    editor = ConfiguredEditor(offers=False)
    server = server_with(editor, isolated_state, {"maxTurns": 5})
    await refresh_configuration(server, pushed={"agentls": {"maxTurns": 7, "reviewVia": "prompt"}})
    assert server.settings.limits.max_turns == 7 and editor.face.review_via == "prompt"
    assert editor.sections == []


async def test_workspace_scoped_values_are_untrusted_and_said_once(isolated_state: Path) -> None:
    sent = {"maxTurns": 6, "workspaceScoped": {"model": "openai:x", "approvalsVia": "prompt"}}
    editor = ConfiguredEditor(sent)
    server = server_with(editor, isolated_state)
    await refresh_configuration(server)
    await refresh_configuration(server)
    assert server.settings.model.id != "openai:x" and server.settings.limits.max_turns == 6
    assert editor.face.approvals_via == "prompt"  # harmless: how the person is asked
    (note,) = [told for told in editor.told if "ignoring" in told]
    assert "model" in note


async def test_bad_settings_leave_the_previous_ones_in_force(isolated_state: Path) -> None:
    editor = ConfiguredEditor({"maxTurns": 4})
    server = server_with(editor, isolated_state)
    await refresh_configuration(server)
    editor.configuration_answer = {"maxTurns": "many"}
    await refresh_configuration(server)
    assert server.settings.limits.max_turns == 4
    assert any("maxTurns" in told and "previous settings" in told for told in editor.told)


async def test_the_editor_layers_sit_above_the_files(isolated_state: Path, tmp_path: Path) -> None:
    user = Path(tmp_path / "config" / "agentls" / "settings.json")
    user.parent.mkdir(parents=True)
    user.write_text(json.dumps({"maxTurns": 30, "maxTokens": 1000}))
    root = tmp_path / "ws"
    (root / ".agentls").mkdir(parents=True)
    (root / ".agentls" / "settings.json").write_text(json.dumps({"model": "openai:y"}))
    editor = ConfiguredEditor({"maxTurns": 8})
    server = server_with(editor, isolated_state)
    await refresh_configuration(server)
    for settings in (await server.settings_for_async(root), await server.settings_for_async(root)):
        assert (settings.limits.max_turns, settings.limits.max_tokens) == (8, 1000)
        assert settings.model.id != "openai:y"  # the workspace file is not approved
    notes = [told for told in editor.told if "agentls trust" in told]
    assert len(notes) == 1  # said once, however often the files are read


async def test_a_conversations_workspace_is_wired_when_it_opens(
    isolated_state: Path, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    editor = ConfiguredEditor({"model": "scripted:demo", "mode": "accept-edits"})
    server = server_with(editor, isolated_state)
    await refresh_configuration(server)
    conversation = await server.conversation_for_async(None, root)
    workspace = conversation.workspace
    assert isinstance(workspace, LspWorkspace) and workspace.editor is editor
    assert workspace.link.session_id == conversation.session_id != ""
    assert workspace.link.policy is conversation
    assert server.link_of(conversation.session_id) is workspace.link
    assert workspace.link.needs_review("a.py") is False  # accept-edits: no review
    # New settings reach the open conversation too.
    editor.configuration_answer = {"model": "scripted:demo", "mode": "plan"}
    await refresh_configuration(server)
    assert conversation.mode.value == "plan" and workspace.link.needs_review("a.py") is True
    await server.shutdown_runs()
