"""Prompt commands through the language server (pytest-lsp against `agentls serve`): the
list an editor completes from, `/name args` in `agentls.ask` expanded as in every face
with what the person points at after it, an unknown name refused, and a command's
allowed-tools heard only from a trusted file."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.e2e.lsp.editor import Editor
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.unit.lsp.test_commands import fits

TOUCH = ("toolu_1", "run_command", {"command": "touch made"})


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _user_commands() -> Path:
    return Path(os.environ["XDG_CONFIG_HOME"]) / "agentls" / "commands"


def _sent(fake: FakeAnthropic) -> str:
    content: Any = fake.requests[0].body["messages"][0]["content"]
    return content if isinstance(content, str) else "".join(b["text"] for b in content)


async def test_the_list_the_editors_complete_from(editor: Editor, root: Path) -> None:
    _write(root / ".agentls/commands/review.md",
           "---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1\n")  # fmt: skip
    _write(root / ".claude/commands/git/commit.md", "Commit $ARGUMENTS\n")
    _write(root / ".github/prompts/form.prompt.md", "Form ${input:name}\n")
    _write(root / ".agentls/commands/bad.md", "---\nx: 'open\n---\nbody\n")
    _write(_user_commands() / "mine.md", "---\nallowed-tools: Bash(ls:*)\n---\nMine\n")
    uri = (root / "a.py").as_uri()
    listed = fits("agentls.commands", await editor.command("agentls.commands", {"uri": uri}))
    by_name = {c["name"]: c for c in listed["commands"]}
    assert list(by_name) == ["form", "git:commit", "mine", "review"]
    review = by_name["review"]
    assert (review["description"], review["inputHint"], review["scope"]) == (
        "Review a file", "FILE", "workspace")  # fmt: skip
    assert by_name["mine"]["rules"] == ["run_command(ls *)"] and by_name["mine"]["trusted"]
    assert listed["problems"] == [
        ".agentls/commands/bad.md: broken frontmatter (line 2: a quoted value that is not "
        "closed); not offered"
    ]
    assert await editor.command("agentls.commands") == listed  # no argument: the first folder


async def test_a_command_expands_with_the_file_looked_at_after_it(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    review = _write(root / ".agentls/commands/review.md", "Review $1 for $2.\n")
    uri = editor.open("a.py", "x = 1\n")
    fake.add(turn("Reviewed."))
    result = await editor.ask("/review a.py naming", uri=uri, wait=True)
    assert result["terminalReason"] == "completed"
    assert _sent(fake) == "Review a.py for naming.\n\n(The person is looking at a.py.)"
    (log,) = (Path(os.environ["AGENTLS_STATE_DIR"]) / "sessions").glob("*.jsonl")
    text = log.read_text()
    assert '"kind":"prompt_command"' in text.replace(" ", "")
    assert hashlib.sha256(review.read_bytes()).hexdigest() in text
    reports = await editor.wait_progress_end()
    begin = reports[0]
    assert "/review: .agentls/commands/review.md" in (begin.title + (begin.message or ""))


async def test_an_unknown_command_is_refused_and_makes_no_session(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    _write(root / ".agentls/commands/review.md", "Review\n")
    with pytest.raises(JsonRpcException) as refused:
        await editor.ask("/reveiw a.py", wait=True)
    assert "unknown command /reveiw" in str(refused.value) and "/review" in str(refused.value)
    assert fake.requests == []
    assert not list((Path(os.environ["AGENTLS_STATE_DIR"]) / "sessions").glob("*.jsonl"))


async def test_allowed_tools_of_the_person_s_own_file_allow_and_a_workspace_s_do_not(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    command = "---\nallowed-tools: Bash(touch:*)\n---\nTouch it.\n"
    _write(_user_commands() / "mine.md", command)
    _write(root / ".agentls/commands/theirs.md", command)
    fake.add(turn(tool_calls=[TOUCH]), turn("Done."))
    trusted = await editor.ask("/mine", wait=True)
    assert trusted["terminalReason"] == "completed"
    assert (root / "made").exists() and editor.prompts == []  # allowed by its rule

    (root / "made").unlink()
    editor.answers = ["Deny"]
    fake.add(turn(tool_calls=[TOUCH]), turn("Done."))
    untrusted = await editor.ask("/theirs", wait=True)
    assert untrusted["terminalReason"] == "completed"
    (asked,) = editor.prompts  # the call still asks
    assert "touch made" in asked.message
    assert not (root / "made").exists()


async def test_an_agentls_line_naming_a_command_is_a_code_action_that_expands_it(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    _write(root / ".agentls/commands/review.md", "Review $1 for $2.\n")
    (root / "a.py").write_text("# agentls: /review a.py naming\nx = 1\n")
    uri = editor.open("a.py")
    actions = await editor.client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            range=types.Range(types.Position(0, 0), types.Position(0, 0)),
            context=types.CodeActionContext(diagnostics=[]),
        )
    )
    (action,) = [a for a in actions if a.title.startswith("Ask agentls: /review")]
    assert action.command is not None
    fake.add(turn("Reviewed."))
    (argument,) = action.command.arguments
    result = await editor.ask(argument["prompt"], uri=argument["uri"], wait=True)
    assert result["terminalReason"] == "completed"
    assert _sent(fake) == "Review a.py for naming.\n\n(The person is looking at a.py.)"
