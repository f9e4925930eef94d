"""Questions that wait for the person as code actions, for editors without a usable prompt.

An approval, an edit review or a proposed plan that cannot be asked with showMessageRequest
(Helix up to 25.07 answers MethodNotFound; Kate takes an edit only right after
the person picked an action; plugins that draw their own prompts) waits here:
it is announced as an `agentls/event` `question`, shown as an Information
diagnostic, offered as code actions on every document, and answered through
`agentls.answer`. The run waits at most `approvalTimeoutSeconds`.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from lsprotocol import types

from agentls.contracts.waiting import within

Emit = Callable[[str, dict[str, Any]], None]
DIAGNOSTIC_SOURCE = "agentls"
MAX_SHOWN_DETAIL = 1500
_ids = itertools.count(1)


class Diagnostics(Protocol):
    """Where the editor shows a waiting question (what the board needs of the client)."""

    last_uri: str | None  # the document the person touched last

    def can_show_documents(self) -> bool: ...

    def publish_diagnostics(self, uri: str, diagnostics: list[types.Diagnostic]) -> None: ...


def _loop() -> asyncio.AbstractEventLoop:
    return asyncio.get_running_loop()


def new_review_id() -> str:
    return f"review-{next(_ids)}"


@dataclass(eq=False)
class Question:
    id: str
    kind: Literal["approval", "review", "plan"]
    summary: str
    detail: str
    answers: list[tuple[str, str]]  # (answer, title), in the order they are offered
    session_id: str
    uri: str | None = None  # where the Information diagnostic goes
    line: int = 0
    seen_uri: str | None = None  # the document the person looked at last, shown there too
    path: str | None = None  # for a review: the file, relative to its root
    before: str = ""  # for a review: the texts, to show the diff
    after: str = ""
    future: asyncio.Future[str] = field(default_factory=lambda: _loop().create_future())
    # Set once what the answer starts is done (a review's applyEdit has been answered),
    # so agentls.answer returns only then: Kate takes an edit only while the person's
    # command is fresh.
    settled: asyncio.Event = field(default_factory=asyncio.Event)

    def payload(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "question": self.kind,
            "summary": self.summary,
            "detail": self.detail,
            "path": self.path,
            "answers": [{"answer": a, "title": t} for a, t in self.answers],
        }

    def message(self, with_detail: bool) -> str:
        """A short first line (editors show it inline); the detail (the diff) below
        only for editors that cannot open it as a document."""
        choices = " / ".join(title.split(":", 1)[0] for _, title in self.answers)
        body = f"agentls asks: {self.summary}? Answer with a code action: {choices}"
        if not with_detail or not self.detail or self.detail == self.summary:
            return body
        shown = self.detail
        if len(shown) > MAX_SHOWN_DETAIL:
            shown = shown[:MAX_SHOWN_DETAIL] + "\n…"
        return f"{body}\n{shown}"


class QuestionBoard:
    """The questions waiting in one editor, each shown where it belongs and where the
    person looks; a question leaves the board when answered, timed out or cancelled."""

    def __init__(self, client: Diagnostics) -> None:
        self.client = client
        self.open: dict[str, Question] = {}

    async def ask(self, question: Question, timeout: float, emit: Emit) -> str | None:
        """The chosen answer, or None when none came in time."""
        self.open[question.id] = question
        # Also where the person is looking, so the question is seen (Kate shows
        # diagnostics of the current document only).
        question.seen_uri = self.client.last_uri
        self._publish(question.uri)
        self._publish(question.seen_uri)
        emit("question", question.payload())
        outcome = "cancelled"
        try:
            answer = await within(asyncio.shield(question.future), timeout)
            outcome = answer
            return answer
        except TimeoutError:
            outcome = "timeout"
            return None
        finally:
            self.open.pop(question.id, None)
            if not question.future.done():
                question.future.cancel()
            if question.kind != "review" or outcome != "apply":
                question.settled.set()
            self._publish(question.uri)
            self._publish(question.seen_uri)
            emit("question_closed", {"id": question.id, "answer": outcome})

    def answer(self, question_id: str, answer: str) -> Question:
        """Resolve an open question; KeyError or ValueError when that cannot be."""
        question = self.open[question_id]
        if answer not in (a for a, _ in question.answers):
            raise ValueError(
                f"{answer!r} does not answer {question_id}; "
                f"use one of {', '.join(a for a, _ in question.answers)}"
            )
        if not question.future.done():
            question.future.set_result(answer)
        return question

    def _publish(self, uri: str | None) -> None:
        if uri is None:
            return
        with_detail = not self.client.can_show_documents()
        diagnostics = [
            types.Diagnostic(
                range=types.Range(types.Position(line, 0), types.Position(line, 0)),
                message=q.message(with_detail),
                severity=types.DiagnosticSeverity.Information,
                source=DIAGNOSTIC_SOURCE,
                code=q.id,
            )
            for q in self.open.values()
            for line in ([q.line] if q.uri == uri else [0] if q.seen_uri == uri else [])
        ]
        self.client.publish_diagnostics(uri, diagnostics)
