"""`agentls.doctor` over LSP: the report the editors show, for the settings the editor sent."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.lsp.conftest import EditorFactory, open_editor

__all__ = ["open_editor"]  # the fixture, shared with tests/e2e/lsp


async def test_the_report_follows_the_editors_settings(
    open_editor: EditorFactory, root: Path, isolated_state: Path
) -> None:
    editor = await open_editor(init_options={"model": "openai:gpt-4o"})
    report = await editor.command("agentls.doctor")
    assert report["workspace"] == str(root.resolve())
    assert report["folders"]["state"] == str(isolated_state)
    assert report["model"]["id"] == "openai:gpt-4o" and report["model"]["keySet"] is False
    assert report["ok"] is False
    assert report["blocking"] == ["openai:gpt-4o needs OPENAI_API_KEY, or a local server's URL "
                                  "in OPENAI_BASE_URL or the baseUrl setting"]  # fmt: skip
    assert "test-key" not in str(report)


async def test_a_key_in_the_servers_environment_makes_it_ready(
    open_editor: EditorFactory, root: Path
) -> None:
    editor = await open_editor()  # anthropic, with ANTHROPIC_API_KEY in the server's environment
    report = await editor.command("agentls.doctor", {"uri": (root / "a.py").as_uri()})
    assert report["ok"] is True and report["model"]["keySet"] is True
    assert "test-key" not in str(report)
    assert report["settings"]["workspace"]["exists"] is False
