"""The prompt agentls.ask hands the conversation: the person's words, then the file
they were looking at or the lines they selected (`conversation/prompt_context.py`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from agentls.lsp.commands.ask import with_editor_context
from agentls.protocol.commands import AskParams
from agentls.workspace.local import LocalWorkspace


def editor_with(lines: Sequence[str]) -> Any:
    async def document_lines(uri: str) -> Sequence[str]:
        return lines

    return SimpleNamespace(editor=SimpleNamespace(document_lines=document_lines))


def ask(**fields: Any) -> AskParams:
    return AskParams.model_validate({"prompt": "why?", **fields})


async def test_the_prompt_alone_without_a_document(tmp_path: Path) -> None:
    prompt = await with_editor_context(editor_with([]), LocalWorkspace(tmp_path).relative, ask())
    assert prompt == "why?"


async def test_the_document_looked_at_is_named_by_its_path_in_the_workspace(
    tmp_path: Path,
) -> None:
    uri = (tmp_path / "src" / "a.py").as_uri()
    prompt = await with_editor_context(
        editor_with([]), LocalWorkspace(tmp_path).relative, ask(uri=uri)
    )
    assert prompt == "why?\n\n(The person is looking at src/a.py.)"


async def test_a_selection_carries_its_lines_numbered_from_one(tmp_path: Path) -> None:
    uri = (tmp_path / "a.py").as_uri()
    selected = {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 3}}
    editor = editor_with(["one\n", "two\n", "three\n", "four\n"])
    prompt = await with_editor_context(
        editor, LocalWorkspace(tmp_path).relative, ask(uri=uri, range=selected)
    )
    assert prompt == "why?\n\nFrom a.py, lines 2-3:\n```\ntwo\nthree\n```"


async def test_a_document_outside_the_workspace_is_not_named(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    uri = (tmp_path / "elsewhere.py").as_uri()
    prompt = await with_editor_context(
        editor_with([]), LocalWorkspace(tmp_path / "ws"), ask(uri=uri)
    )
    assert prompt == "why?"
