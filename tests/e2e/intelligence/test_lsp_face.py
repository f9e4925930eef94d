"""In the language server, what the servers check is the editor's unsaved text."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.lsp.editor import Editor, start_editor
from tests.fakes.anthropic_server import FakeAnthropic, turn

SAVED = "def greet(name: str) -> str:\n    return 'hi ' + name\n"
UNSAVED = SAVED + "\nwrong: int = greet('unsaved')\n"


@pytest.fixture
async def editor(
    workspace: Path, fake: FakeAnthropic, isolated_state: Path, pyright_path: str
) -> AsyncIterator[Editor]:
    (workspace / "pyproject.toml").write_text("[project]\nname = 'p'\nversion = '0'\n")
    (workspace / "a.py").write_text(SAVED)
    env = {
        "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake.base_url,
        "AGENTLS_STATE_DIR": str(isolated_state), "PATH": pyright_path,
    }  # fmt: skip
    options = {"model": "anthropic:claude-sonnet-4-5", "languageServers": {"ruff": None}}
    started = await start_editor(workspace, env, init_options=options)
    yield started
    await started.client.shutdown_session()
    await started.client.stop()


def request_text(fake: FakeAnthropic, index: int) -> str:
    last = fake.requests[index].body["messages"][-1]
    parts: list[str] = []
    for block in last["content"]:
        content: Any = block.get("content", block.get("text", ""))
        parts.append(content if isinstance(content, str) else str(content))
    return "\n".join(parts)


async def test_problems_are_those_of_the_unsaved_buffer(
    editor: Editor, fake: FakeAnthropic
) -> None:
    editor.open("a.py", UNSAVED)  # never saved: the disk holds SAVED
    fake.add(
        turn(tool_calls=[("toolu_all", "problems", {})]),  # no path: the unsaved files too
        turn(tool_calls=[("toolu_p", "problems", {"path": "a.py"})]),
        turn("Seen."),
    )
    result = await editor.ask("what is wrong?", wait=True)
    assert result["terminalReason"] == "completed", result
    for request in (1, 2):
        seen = request_text(fake, request)
        assert 'a.py:4: Type "str" is not assignable to declared type "int"' in seen


async def test_an_edit_to_an_open_buffer_reports_its_new_problem(
    editor: Editor, fake: FakeAnthropic
) -> None:
    uri = editor.open("a.py", SAVED)
    editor.answers = ["Apply"]
    edit = {"path": "a.py", "old_text": "    return 'hi ' + name\n",
            "new_text": "    return 'hi ' + name\n\n\ncount: int = greet('x')\n"}  # fmt: skip
    fake.add(turn(tool_calls=[("toolu_e", "edit_file", edit)]), turn("Done."))
    result = await editor.ask("add count", wait=True)
    assert result["terminalReason"] == "completed", result
    assert "count: int" in editor.text(uri)
    seen = request_text(fake, 1)
    assert "New problems after this turn's edits" in seen
    assert 'a.py:5: Type "str" is not assignable to declared type "int"' in seen
