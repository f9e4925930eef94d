"""Which way a question goes to the person: the client's capabilities, the settings,
and the one fallback from a failing prompt to code actions."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from lsprotocol import types

from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.contracts.tooling import Risk
from agentls.conversation.settings import FaceSettings, Settings
from agentls.lsp.asking.approvals import LspApprover
from agentls.lsp.asking.review import Proposal, review_edit
from agentls.lsp.editor import routes
from agentls.lsp.editor.client import LspEditorClient
from agentls.lsp.editor.protocols import PromptReply

from .fake_editor import Emitted, FakeEditor, as_client

# --- routes from the settings ------------------------------------------------------


@pytest.mark.parametrize(
    ("via", "cannot_prompt", "route"),
    [
        ("auto", False, "prompt"),
        ("auto", True, "codeAction"),
        ("prompt", True, "prompt"),
        ("codeAction", False, "codeAction"),
    ],
)
def test_approvals_route(via: str, cannot_prompt: bool, route: str) -> None:
    assert routes.approvals_route(via, cannot_prompt) == route


@pytest.mark.parametrize(
    ("via", "previews", "cannot_prompt", "route"),
    [
        ("auto", True, False, "editor"),
        ("auto", True, True, "editor"),
        ("auto", False, False, "prompt"),
        ("auto", False, True, "codeAction"),
        ("editor", False, False, "editor"),
        ("prompt", True, True, "prompt"),
        ("codeAction", True, False, "codeAction"),
    ],
)
def test_review_route(via: str, previews: bool, cannot_prompt: bool, route: str) -> None:
    assert routes.review_route(via, previews, cannot_prompt) == route


# --- routes from the client's capabilities ---------------------------------------------


def client(capabilities: types.ClientCapabilities, name: str = "") -> LspEditorClient:
    server: Any = SimpleNamespace(client_capabilities=capabilities)
    editor = LspEditorClient(server, settings=Settings, state_dir=lambda: Path("/nonexistent"))
    editor.name = name
    return editor


def capabilities(*, annotations: bool = False, create: bool = False, show: bool = False,
                 saves: bool = False) -> types.ClientCapabilities:  # fmt: skip
    edit = types.WorkspaceEditClientCapabilities(
        document_changes=True,
        change_annotation_support=(
            types.ChangeAnnotationsSupportOptions(groups_on_label=True) if annotations else None
        ),
        resource_operations=[types.ResourceOperationKind.Create] if create else None,
    )
    return types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(workspace_edit=edit),
        window=types.WindowClientCapabilities(
            show_document=types.ShowDocumentClientCapabilities(support=True) if show else None
        ),
        experimental={"agentls": {"savesEdits": True}} if saves else None,
    )


def test_a_client_with_annotated_edits_reviews_them_itself() -> None:
    editor = client(capabilities(annotations=True), "Visual Studio Code")
    assert editor.previews_edits()
    assert (editor.route("review"), editor.route("approval")) == ("editor", "prompt")
    assert not editor.uses_code_actions()


def test_a_client_known_to_apply_annotated_edits_unseen_gets_a_review() -> None:
    editor = client(capabilities(annotations=True), "Sublime Text LSP")
    assert not editor.previews_edits()
    assert editor.route("review") == "prompt"


def test_settings_override_the_capabilities() -> None:
    editor = client(capabilities(annotations=True))
    editor.face = FaceSettings(approvals_via="codeAction", review_via="prompt")
    assert (editor.route("review"), editor.route("approval")) == ("prompt", "codeAction")
    assert editor.route_is_fixed("review") and editor.uses_code_actions()


def test_capabilities_read_from_the_client() -> None:
    bare = client(types.ClientCapabilities())
    assert not (bare.creates_files() or bare.can_show_documents() or bare.saves_edits())
    assert not bare.previews_edits() and bare.route("review") == "prompt"
    full = client(capabilities(create=True, show=True, saves=True))
    assert full.creates_files() and full.can_show_documents() and full.saves_edits()


# --- approvals: one path, one fallback ---------------------------------------------------


def request(rule: str = "run_command(make test)") -> ApprovalRequest:
    return ApprovalRequest("call-1", "run_command", Risk.EXECUTE, "make test", "make test", rule)


async def answer_when_asked(fake: FakeEditor, emitted: Emitted, answer: str) -> None:
    asked = await emitted.wait_for("question")
    fake.questions.answer(asked["id"], answer)


async def test_an_approval_is_a_prompt_when_the_editor_prompts() -> None:
    fake = FakeEditor(replies=[PromptReply("Allow once")])
    approver = LspApprover(as_client(fake), emit=Emitted())
    assert await approver.approve(request()) is ApprovalAnswer.ALLOW_ONCE
    ((message, titles),) = fake.prompts
    assert titles == ["Allow once", "Always allow", "Deny"] and "run_command(make test)" in message
    assert fake.questions.open == {}


async def test_a_dismissed_prompt_is_a_deny() -> None:
    fake = FakeEditor(replies=[PromptReply(None)])
    approver = LspApprover(as_client(fake))
    assert await approver.approve(request()) is ApprovalAnswer.DENY
    assert "dismissed" in approver.reason and not fake.cannot_prompt


async def test_a_failing_prompt_falls_back_to_code_actions_once_and_for_good() -> None:
    fake = FakeEditor(replies=[PromptReply(None, failed=True)])
    emitted = Emitted()
    approver = LspApprover(as_client(fake), session_id="s1", emit=emitted, origin_uri="file:///a")
    answering = asyncio.ensure_future(answer_when_asked(fake, emitted, "allow_once"))
    assert await approver.approve(request()) is ApprovalAnswer.ALLOW_ONCE
    await answering
    assert fake.cannot_prompt and fake.told == ["cannot prompt"]
    assert emitted.kinds() == ["question", "question_closed"]
    # The next question goes straight to code actions: no prompt is tried again.
    emitted.events.clear()
    answering = asyncio.ensure_future(answer_when_asked(fake, emitted, "deny"))
    assert await approver.approve(request()) is ApprovalAnswer.DENY
    await answering
    assert len(fake.prompts) == 1


async def test_a_prompt_the_settings_ask_for_is_not_replaced() -> None:
    fake = FakeEditor(face=FaceSettings(approvals_via="prompt"), replies=[PromptReply(None, True)])
    emitted = Emitted()
    assert (
        await LspApprover(as_client(fake), emit=emitted).approve(request()) is ApprovalAnswer.DENY
    )
    assert emitted.events == [] and not fake.cannot_prompt


async def test_code_actions_from_the_settings_never_prompt() -> None:
    fake = FakeEditor(face=FaceSettings(approvals_via="codeAction"))
    emitted = Emitted()
    answering = asyncio.ensure_future(answer_when_asked(fake, emitted, "allow_always"))
    answer = await LspApprover(as_client(fake), emit=emitted).approve(request())
    await answering
    assert answer is ApprovalAnswer.ALLOW_ALWAYS and fake.prompts == []
    offered = [a["answer"] for a in emitted.events[0][1]["answers"]]
    assert offered == ["allow_once", "allow_always", "deny"]


async def test_no_rule_to_remember_means_no_always_allow_to_pick() -> None:
    fake = FakeEditor(face=FaceSettings(approvals_via="codeAction"))
    emitted = Emitted()
    answering = asyncio.ensure_future(answer_when_asked(fake, emitted, "deny"))
    await LspApprover(as_client(fake), emit=emitted).approve(request(rule=""))
    await answering
    assert [a["answer"] for a in emitted.events[0][1]["answers"]] == ["allow_once", "deny"]


async def test_always_allow_cannot_answer_a_question_no_rule_covers() -> None:
    fake = FakeEditor(face=FaceSettings(approvals_via="codeAction"))
    emitted = Emitted()

    async def answer_always_then_once() -> None:
        asked = await emitted.wait_for("question")
        with pytest.raises(ValueError, match="does not answer"):
            fake.questions.answer(asked["id"], "allow_always")
        fake.questions.answer(asked["id"], "allow_once")

    answering = asyncio.ensure_future(answer_always_then_once())
    answer = await LspApprover(as_client(fake), emit=emitted).approve(request(rule=""))
    await answering
    assert answer is ApprovalAnswer.ALLOW_ONCE


async def test_always_allow_is_saved_to_the_workspace_when_the_settings_say_so() -> None:
    fake = FakeEditor(
        settings={"alwaysAllowScope": "workspace"}, replies=[PromptReply("Always allow")]
    )
    answer = await LspApprover(as_client(fake)).approve(request())
    assert answer is ApprovalAnswer.ALLOW_ALWAYS_WORKSPACE


# --- edit reviews: the same path ---------------------------------------------------------


def proposal() -> Proposal:
    return Proposal("src/a.py", "file:///ws/src/a.py", "a\nb\n", "a\nB\n", "edit src/a.py", "s1")


async def test_show_diff_opens_the_diff_and_asks_again(tmp_path: Path) -> None:
    replies = [PromptReply("Show diff"), PromptReply("Apply")]
    fake = FakeEditor(replies=replies, state_dir=tmp_path)
    review = await review_edit(as_client(fake), proposal(), Emitted())
    assert review.approved and review.question is None
    assert [titles for _, titles in fake.prompts] == [["Apply", "Show diff", "Reject"]] * 2
    (shown,) = fake.shown
    written = next((tmp_path / "diffs").iterdir())
    assert shown == written.as_uri() and "+B" in written.read_text()


async def test_an_editor_that_cannot_open_documents_gets_the_diff_in_the_prompt() -> None:
    fake = FakeEditor(replies=[PromptReply("Reject")], shows_documents=False)
    review = await review_edit(as_client(fake), proposal(), Emitted())
    ((message, titles),) = fake.prompts
    assert titles == ["Apply", "Reject"] and "+B" in message
    assert (review.approved, review.reason) == (False, "the person chose Reject")


async def test_a_person_who_only_looks_at_the_diff_has_not_decided(tmp_path: Path) -> None:
    fake = FakeEditor(replies=[PromptReply("Show diff")] * 10, state_dir=tmp_path)
    review = await review_edit(as_client(fake), proposal(), Emitted())
    assert (review.approved, review.reason) == (False, "no decision after several rounds")


async def test_a_review_waits_as_code_actions_where_the_diagnostic_points() -> None:
    fake = FakeEditor(face=FaceSettings(review_via="codeAction"))
    emitted = Emitted()
    answering = asyncio.ensure_future(answer_when_asked(fake, emitted, "apply"))
    review = await review_edit(as_client(fake), proposal(), emitted)
    await answering
    assert review.approved and review.question is not None
    assert (review.question.uri, review.question.line, review.question.path) == (
        "file:///ws/src/a.py", 1, "src/a.py"
    )  # fmt: skip
    assert fake.prompts == []
