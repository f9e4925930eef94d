"""The question board: questions waiting as code actions and Information diagnostics."""

from __future__ import annotations

import asyncio

import pytest

from agentls.lsp.questions.board import DIAGNOSTIC_SOURCE, Question

from .fake_editor import Emitted, FakeEditor


def question(kind: str = "approval", qid: str = "call-1") -> Question:
    answers = [("allow_once", "Allow once: make"), ("deny", "Deny: make")]
    if kind == "review":
        answers = [("apply", "Apply: edit a.py"), ("reject", "Reject: edit a.py")]
    return Question(
        id=qid,
        kind=kind,  # type: ignore[arg-type]
        summary="make" if kind == "approval" else "edit a.py",
        detail="make -j8" if kind == "approval" else "--- a.py\n+++ a.py\n-x\n+y\n",
        answers=answers,
        session_id="s1",
        uri="file:///ws/a.py",
        line=4,
    )


async def asked(board_editor: FakeEditor, q: Question, timeout: float = 60.0) -> tuple[
    asyncio.Task[str | None], Emitted
]:  # fmt: skip
    emitted = Emitted()
    task = asyncio.ensure_future(board_editor.questions.ask(q, timeout, emitted))
    await emitted.wait_for("question")
    return task, emitted


async def test_a_question_is_shown_where_it_belongs_and_where_the_person_looks() -> None:
    editor = FakeEditor()
    editor.last_uri = "file:///ws/other.py"
    task, emitted = await asked(editor, question())
    (shown,) = editor.published["file:///ws/a.py"]
    assert (shown.range.start.line, shown.source, shown.code) == (4, DIAGNOSTIC_SOURCE, "call-1")
    assert shown.message.startswith("agentls asks: make? Answer with a code action: Allow once")
    (seen,) = editor.published["file:///ws/other.py"]
    assert seen.range.start.line == 0
    payload = emitted.events[0][1]
    assert payload["answers"] == [
        {"answer": "allow_once", "title": "Allow once: make"},
        {"answer": "deny", "title": "Deny: make"},
    ]
    assert list(editor.questions.open) == ["call-1"]
    editor.questions.answer("call-1", "deny")
    assert await task == "deny"


async def test_an_answer_closes_the_question_and_clears_its_diagnostics() -> None:
    editor = FakeEditor()
    q = question()
    task, emitted = await asked(editor, q)
    assert editor.questions.answer("call-1", "allow_once") is q
    assert await task == "allow_once"
    assert emitted.events[-1] == ("question_closed", {"id": "call-1", "answer": "allow_once"})
    assert editor.questions.open == {} and editor.published["file:///ws/a.py"] == []
    assert q.settled.is_set()  # an approval has nothing more to do
    with pytest.raises(KeyError):
        editor.questions.answer("call-1", "allow_once")


async def test_an_answer_the_question_does_not_offer_is_refused() -> None:
    editor = FakeEditor()
    task, _ = await asked(editor, question())
    with pytest.raises(ValueError, match="use one of allow_once, deny"):
        editor.questions.answer("call-1", "apply")
    assert "call-1" in editor.questions.open and not task.done()
    editor.questions.answer("call-1", "deny")
    await task


async def test_an_applied_review_is_settled_by_whoever_sends_the_edit() -> None:
    editor = FakeEditor()
    q = question("review", "review-1")
    task, _ = await asked(editor, q)
    editor.questions.answer("review-1", "apply")
    assert await task == "apply"
    assert not q.settled.is_set()  # the workspace sets it once the editor took the edit


async def test_a_question_expires() -> None:
    editor = FakeEditor()
    emitted = Emitted()
    answer = await editor.questions.ask(question(), 0.01, emitted)
    assert answer is None
    assert emitted.events[-1] == ("question_closed", {"id": "call-1", "answer": "timeout"})
    assert editor.questions.open == {} and editor.published["file:///ws/a.py"] == []


async def test_a_cancelled_run_takes_its_question_away() -> None:
    editor = FakeEditor()
    q = question()
    task, emitted = await asked(editor, q)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert emitted.events[-1] == ("question_closed", {"id": "call-1", "answer": "cancelled"})
    assert editor.questions.open == {} and q.settled.is_set() and q.future.cancelled()
    with pytest.raises(KeyError):
        editor.questions.answer("call-1", "deny")


async def test_several_questions_share_a_document() -> None:
    editor = FakeEditor()
    first, _ = await asked(editor, question(qid="call-1"))
    second, _ = await asked(editor, question(qid="call-2"))
    assert [d.code for d in editor.published["file:///ws/a.py"]] == ["call-1", "call-2"]
    editor.questions.answer("call-1", "deny")
    await first
    assert [d.code for d in editor.published["file:///ws/a.py"]] == ["call-2"]
    editor.questions.answer("call-2", "deny")
    await second


async def test_the_diff_is_in_the_diagnostic_only_where_documents_cannot_be_opened() -> None:
    for shows, with_diff in ((True, False), (False, True)):
        editor = FakeEditor(shows_documents=shows)
        task, _ = await asked(editor, question("review", "review-1"))
        (shown,) = editor.published["file:///ws/a.py"]
        assert ("+y" in shown.message) is with_diff
        editor.questions.answer("review-1", "reject")
        await task


async def test_a_run_cancelled_as_the_answer_arrives_stays_cancelled() -> None:
    editor = FakeEditor()
    task, _ = await asked(editor, question())
    editor.questions.answer("call-1", "allow_once")  # the person answers...
    task.cancel()  # ...as the run is cancelled: the command must not run after all
    with pytest.raises(asyncio.CancelledError):
        await task
