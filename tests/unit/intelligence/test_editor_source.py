"""Routing the Workspace's language questions to the editor, and back to agentls's own
servers where the editor has no answer (a fake editor; no server on PATH)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentls.contracts.tooling import ToolError
from agentls.intelligence.after_edits import Baseline
from agentls.intelligence.config import ProblemsSettings
from agentls.intelligence.languages import Languages
from agentls.intelligence.router import RoutedIntelligence, Source
from agentls.workspace.local import LocalWorkspace
from tests.helpers import lsp_range

TEXT = "def greet(name):\n    return name\n\n\nprint(greet('x'))\n"


class FakeEditor:
    name = "FakeCode"

    def __init__(self, answers: dict[str, Any], offers: tuple[str, ...] | None = None) -> None:
        self.answers = answers
        self.offered = set(answers) if offers is None else set(offers)
        self.asked: list[tuple[str, dict[str, Any]]] = []

    def offers(self, method: str) -> bool:
        return method in self.offered

    async def ask(self, method: str, params: dict[str, Any], timeout: float) -> Any:
        self.asked.append((method, params))
        answer = self.answers.get(method)
        return answer(params) if callable(answer) else answer


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATH", str(tmp_path / "no-servers"))  # agentls's own: none
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "a.py").write_text(TEXT)
    (tmp_path / "w" / "notes.md").write_text("# notes\n")
    return (tmp_path / "w").resolve()


def attach(root: Path, editor: FakeEditor | None, source: Source = "auto") -> RoutedIntelligence:
    languages = Languages()
    languages.editor = editor
    return languages.attach(LocalWorkspace(root), {}, ProblemsSettings(), source=source)


def diagnostics(uri: str, severity: int = 2) -> dict[str, Any]:
    found = {
        "range": lsp_range(4, 0, 5),
        "severity": severity,
        "message": "deprecated",
        "source": "lint",
    }
    return {"uri": uri, "diagnostics": [found], "settled": True, "checked": True}


async def test_without_an_editor_agentls_uses_its_own_servers(root: Path) -> None:
    intelligence = attach(root, None)
    assert intelligence.editor is None


async def test_problems_come_from_the_editor_and_files_it_does_not_check_say_why(
    root: Path,
) -> None:
    def problems(params: dict[str, Any]) -> list[dict[str, Any]]:
        a_py, notes = params["uris"]
        return [diagnostics(a_py), {"uri": notes, "diagnostics": [], "checked": False}]

    editor = FakeEditor({"problems": problems})
    intelligence = attach(root, editor)
    assert intelligence.editor is not None
    report = await intelligence.problems(["a.py", "notes.md"])
    assert [p.render() for p in report.problems] == ["a.py:5: deprecated (lint)"]
    assert report.problems[0].severity == "warning"
    # agentls's own servers were asked about what the editor does not check: none exist.
    assert "no language server is configured for .md files" in report.unchecked["notes.md"]
    assert editor.asked[0][1]["settleSeconds"] >= 2


async def test_problems_after_edits_compare_the_editors_verdicts(root: Path) -> None:
    verdicts = iter([[], [diagnostics((root / "a.py").as_uri(), severity=1)]])
    editor = FakeEditor({"problems": lambda params: next(verdicts)})
    baseline = Baseline(attach(root, editor))
    await baseline.capture(["a.py"])
    (root / "a.py").write_text(TEXT + "x = 1\n")
    new, unsettled = await baseline.introduced()
    assert [p.render() for p in new] == ["a.py:5: deprecated (lint)"] and unsettled == []


async def test_navigation_sends_the_lsp_position_of_the_named_column(root: Path) -> None:
    uri = (root / "a.py").as_uri()
    at_def, at_use = (
        {"uri": uri, "range": lsp_range(0, 4, 9)},
        {"uri": uri, "range": lsp_range(4, 6, 11)},
    )
    editor = FakeEditor({
        "definition": [at_def],
        "references": [at_def, at_use],
        "symbols": [{"name": "greet", "kind": 12, "location": at_def}],
    })  # fmt: skip
    intelligence = attach(root, editor)
    found = await intelligence.definition("a.py", 5, 6)
    assert [(loc.path, loc.line, loc.text) for loc in found.found] == [
        ("a.py", 1, "def greet(name):")
    ]
    assert editor.asked[0][1] == {
        "textDocument": {"uri": uri}, "position": {"line": 4, "character": 6},
    }  # fmt: skip
    refs = await intelligence.references("a.py", 1, 4)
    assert [loc.line for loc in refs.found] == [1, 5]
    assert editor.asked[1][1]["context"] == {"includeDeclaration": True}
    symbols = await intelligence.symbols("gre", None)
    assert [(s.name, s.kind, s.path, s.line) for s in symbols.found] == [
        ("greet", "function", "a.py", 1)
    ]


async def test_a_rename_becomes_whole_file_changes_of_what_the_workspace_reads(
    root: Path,
) -> None:
    uri = (root / "a.py").as_uri()
    edits = [{"range": lsp_range(0, 4, 9), "newText": "welcome"},
             {"range": lsp_range(4, 6, 11), "newText": "welcome"}]  # fmt: skip
    editor = FakeEditor({"rename": [{"uri": uri, "edits": edits}]})
    intelligence = attach(root, editor)
    (change,) = await intelligence.rename("a.py", 1, 4, "welcome")
    assert change.path == "a.py" and change.old_text == TEXT
    assert change.new_text == TEXT.replace("greet", "welcome")
    assert editor.asked[0][1]["newName"] == "welcome"


async def test_a_rename_outside_the_workspace_is_refused(root: Path, tmp_path: Path) -> None:
    outside = (tmp_path / "lib.py").as_uri()
    editor = FakeEditor({"rename": [{"uri": outside, "edits": []}]})
    with pytest.raises(ToolError, match="outside the workspace"):
        await attach(root, editor).rename("a.py", 1, 4, "welcome")


async def test_no_answer_falls_back_to_agentls_or_with_editor_only_says_so(root: Path) -> None:
    editor = FakeEditor({"definition": None})
    with pytest.raises(ToolError, match=r"no language server is configured for \.md"):
        await attach(root, editor).definition("notes.md", 1, 0)  # auto: agentls's own
    with pytest.raises(ToolError, match=r'FakeCode did not answer agentls/definition.*"editor"'):
        await attach(root, editor, "editor").definition("a.py", 1, 4)


async def test_what_the_editor_does_not_offer_and_source_agentls_skip_the_editor(
    root: Path,
) -> None:
    editor = FakeEditor({"problems": lambda params: [diagnostics(params["uris"][0])]})
    report = await attach(root, editor, "agentls").problems(["a.py"])
    assert report.problems == [] and "no language server for .py files" in report.unchecked["a.py"]
    with pytest.raises(ToolError, match="no language server"):
        await attach(root, editor).symbols("greet", None)  # not offered: agentls's own
    assert editor.asked == []


def test_the_status_says_what_the_editor_answers() -> None:
    languages = Languages()
    assert languages.status() == {"editor": None, "servers": []}
    languages.editor = FakeEditor({"problems": []})
    told: list[dict[str, Any]] = []
    languages.on_change = told.append
    languages.changed()
    assert told == [{"editor": {"name": "FakeCode", "answers": ["problems"]}, "servers": []}]


def test_the_setting_chooses_who_answers() -> None:
    from agentls.contracts.errors import ConfigError
    from agentls.conversation.settings import load_settings

    assert load_settings({}).wire.language_intelligence == "auto"
    assert load_settings({"languageIntelligence": "editor"}).wire.language_intelligence == "editor"
    with pytest.raises(ConfigError, match="languageIntelligence"):
        load_settings({"languageIntelligence": "vscode"})
