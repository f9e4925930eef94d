"""An editor that answers the agentls/* language requests itself: the model sees its
problems, definitions, symbols and renames, and agentls starts no server of its own."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from tests.e2e.intelligence.test_lsp_face import request_text
from tests.e2e.lsp.editor import Editor, _plain, capabilities, start_editor
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.helpers import lsp_range

SAVED = "def greet(name: str) -> str:\n    return 'hi ' + name\n\n\nprint(greet('x'))\n"
BROKEN = "count: int = greet('x')"
ANSWERS = ["problems", "definition", "references", "symbols", "rename"]
# No language server on this PATH: whatever the model learns comes from the editor.
BARE_PATH = "/usr/bin:/bin"


class EditorIntelligence:
    """What the editor's own language support says, and what it was asked."""

    def __init__(self, editor: Editor) -> None:
        self.editor = editor
        self.asked: list[tuple[str, dict[str, Any]]] = []
        client = editor.client

        @client.feature("agentls/problems")
        def problems(ls: Any, params: Any) -> list[dict[str, Any]]:
            asked = _plain(params)
            self.asked.append(("problems", asked))
            uris = asked["uris"] or list(editor.buffers)
            return [self._problems(uri) for uri in uris]

        @client.feature("agentls/definition")
        def definition(ls: Any, params: Any) -> list[dict[str, Any]]:
            self.asked.append(("definition", _plain(params)))
            return [{"uri": self.uri("a.py"), "range": lsp_range(0, 4, 9)}]

        @client.feature("agentls/symbols")
        def symbols(ls: Any, params: Any) -> list[dict[str, Any]]:
            self.asked.append(("symbols", _plain(params)))
            location = {"uri": self.uri("a.py"), "range": lsp_range(0, 0, 30)}
            return [{"name": "greet", "kind": 12, "location": location}]

        @client.feature("agentls/rename")
        def rename(ls: Any, params: Any) -> list[dict[str, Any]]:
            asked = _plain(params)
            self.asked.append(("rename", asked))
            new = asked["newName"]
            a_py = [{"range": lsp_range(0, 4, 9), "newText": new},
                    {"range": lsp_range(4, 6, 11), "newText": new}]  # fmt: skip
            b_py = [{"range": lsp_range(0, 14, 19), "newText": new}]
            return [
                {"uri": self.uri("a.py"), "edits": a_py},
                {"uri": self.uri("b.py"), "edits": b_py},
            ]

    def uri(self, rel: str) -> str:
        return (self.editor.root / rel).as_uri()

    def text(self, uri: str) -> str:
        if uri in self.editor.buffers:
            return self.editor.text(uri)
        return Path(uri.removeprefix("file://")).read_text()

    def _problems(self, uri: str) -> dict[str, Any]:
        lines = self.text(uri).splitlines()
        found = [
            {"range": lsp_range(n, 0, len(line)), "severity": 1, "source": "ts", "code": 2322,
             "message": "Type 'string' is not assignable to type 'number'."}
            for n, line in enumerate(lines) if BROKEN in line
        ]  # fmt: skip
        return {"uri": uri, "diagnostics": found, "settled": True, "checked": True}

    def methods(self) -> list[str]:
        return [method for method, _ in self.asked]


async def _start(
    workspace: Path, fake: FakeAnthropic, state: Path, options: dict[str, Any]
) -> Editor:
    (workspace / "a.py").write_text(SAVED)
    (workspace / "b.py").write_text("from a import greet\n")
    env = {
        "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake.base_url,
        "AGENTLS_STATE_DIR": str(state), "PATH": BARE_PATH,
    }  # fmt: skip
    caps = capabilities()
    caps.experimental = {"agentls": {"savesEdits": True, "intelligence": ANSWERS}}
    return await start_editor(
        workspace, env, caps=caps,
        init_options={"model": "anthropic:claude-sonnet-4-5", **options},
    )  # fmt: skip


@pytest.fixture
async def editor(
    workspace: Path, fake: FakeAnthropic, isolated_state: Path
) -> AsyncIterator[Editor]:
    started = await _start(workspace, fake, isolated_state, {})
    yield started
    await started.client.shutdown_session()
    await started.client.stop()


async def test_the_model_sees_the_editors_problems_definitions_and_symbols(
    editor: Editor, fake: FakeAnthropic
) -> None:
    answers = EditorIntelligence(editor)
    editor.open("a.py", SAVED + f"\n{BROKEN}\n")  # unsaved: only the editor knows
    fake.add(
        turn(tool_calls=[("toolu_p", "problems", {"path": "a.py"})]),
        turn(
            tool_calls=[("toolu_d", "definition", {"path": "b.py", "line": 1, "symbol": "greet"})]
        ),
        turn(tool_calls=[("toolu_s", "symbols", {"query": "greet"})]),
        turn("Seen."),
    )
    result = await editor.ask("what is wrong?", wait=True)
    assert result["terminalReason"] == "completed", result
    assert "a.py:7: Type 'string' is not assignable to type 'number'. (ts 2322)" in request_text(
        fake, 1
    )
    assert "a.py:1: def greet(name: str) -> str:" in request_text(fake, 2)
    assert "greet" in request_text(fake, 3) and "a.py:1" in request_text(fake, 3)
    assert answers.methods() == ["problems", "definition", "symbols"]
    problems, definition = answers.asked[0][1], answers.asked[1][1]
    assert problems["uris"] == [answers.uri("a.py")] and problems["settleSeconds"] >= 2
    # The model named the symbol on a line; the editor gets the LSP position of it.
    assert definition["textDocument"]["uri"] == answers.uri("b.py")
    assert definition["position"] == {"line": 0, "character": 14}
    # Nothing answered from agentls's own servers: none could have started on this PATH.
    assert "no language server" not in "".join(request_text(fake, i) for i in (1, 2, 3))


async def test_problems_an_edit_introduced_come_from_the_editor(
    editor: Editor, fake: FakeAnthropic
) -> None:
    EditorIntelligence(editor)
    uri = editor.open("a.py", SAVED)
    editor.answers = ["Apply"]
    edit = {"path": "a.py", "old_text": "print(greet('x'))\n",
            "new_text": f"print(greet('x'))\n{BROKEN}\n"}  # fmt: skip
    fake.add(turn(tool_calls=[("toolu_e", "edit_file", edit)]), turn("Done."))
    result = await editor.ask("add count", wait=True)
    assert result["terminalReason"] == "completed", result
    assert BROKEN in editor.text(uri)
    seen = request_text(fake, 1)
    assert "New problems after this turn's edits" in seen
    assert "a.py:6: Type 'string' is not assignable to type 'number'. (ts 2322)" in seen


async def test_a_rename_from_the_editor_is_reviewed_and_written_like_any_edit(
    editor: Editor, fake: FakeAnthropic, workspace: Path
) -> None:
    answers = EditorIntelligence(editor)
    editor.answers = ["Apply"]
    rename = {"path": "a.py", "line": 1, "symbol": "greet", "new_name": "welcome"}
    fake.add(turn(tool_calls=[("toolu_r", "rename", rename)]), turn("Renamed."))
    result = await editor.ask("rename greet", wait=True)
    assert result["terminalReason"] == "completed", result
    assert "Renamed greet to welcome in 2 file(s): a.py, b.py" in request_text(fake, 1)
    assert (workspace / "b.py").read_text() == "from a import welcome\n"
    assert (workspace / "a.py").read_text() == SAVED.replace("greet", "welcome")
    assert len(editor.prompts) == 1  # one review for both files
    (asked,) = [params for method, params in answers.asked if method == "rename"]
    assert asked["newName"] == "welcome" and asked["position"] == {"line": 0, "character": 4}


async def test_with_language_intelligence_agentls_the_editor_is_not_asked(
    workspace: Path, fake: FakeAnthropic, isolated_state: Path
) -> None:
    editor = await _start(workspace, fake, isolated_state, {"languageIntelligence": "agentls"})
    try:
        answers = EditorIntelligence(editor)
        fake.add(turn(tool_calls=[("toolu_p", "problems", {"path": "a.py"})]), turn("Seen."))
        result = await editor.ask("what is wrong?", wait=True)
        assert result["terminalReason"] == "completed", result
        assert answers.asked == []
        assert "no language server for .py files" in request_text(fake, 1)
    finally:
        await editor.client.shutdown_session()
        await editor.client.stop()


async def test_the_editor_hears_which_language_servers_agentls_runs(
    workspace: Path, fake: FakeAnthropic, isolated_state: Path, pyright_path: str
) -> None:
    (workspace / "pyproject.toml").write_text("[project]\nname = 'p'\nversion = '0'\n")
    (workspace / "a.py").write_text(SAVED)
    env = {
        "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake.base_url,
        "AGENTLS_STATE_DIR": str(isolated_state), "PATH": pyright_path,
    }  # fmt: skip
    options = {"model": "anthropic:claude-sonnet-4-5", "languageServers": {"ruff": None}}
    caps = capabilities()
    caps.experimental = {"agentls": {"savesEdits": True, "languageServers": True}}
    editor = await start_editor(workspace, env, caps=caps, init_options=options)
    statuses: list[dict[str, Any]] = []

    @editor.client.feature("agentls/languageServers")
    def on_status(ls: Any, params: Any) -> None:
        statuses.append(_plain(params))

    try:
        fake.add(turn(tool_calls=[("toolu_p", "problems", {"path": "a.py"})]), turn("Seen."))
        result = await editor.ask("what is wrong?", wait=True)
        assert result["terminalReason"] == "completed", result
        assert statuses, "no agentls/languageServers notification"
        last = statuses[-1]
        assert last["editor"] is None  # this editor answers nothing itself
        assert [(s["name"], s["state"]) for s in last["servers"]] == [("basedpyright", "running")]
        assert last["servers"][0]["root"] == str(workspace.resolve())
    finally:
        await editor.client.shutdown_session()
        await editor.client.stop()


def test_capabilities_name_what_the_client_answers() -> None:
    from agentls.lsp.editor.intelligence import offered, wants_status

    caps = types.ClientCapabilities(experimental={"agentls": {"intelligence": ["problems", 3]}})
    assert offered(caps) == {"problems"}
    assert offered(types.ClientCapabilities()) == frozenset()
    assert offered(types.ClientCapabilities(experimental={"agentls": True})) == frozenset()
    assert not wants_status(caps)
    assert wants_status(
        types.ClientCapabilities(experimental={"agentls": {"languageServers": True}})
    )
