"""Asking the person: one path for approvals and edit reviews.

The route comes from the editor client (`routes.py`). A prompt is a
window/showMessageRequest, asked again while the choice only shows something
(Show diff). If the editor answers the prompt with an error and the settings
left the route to agentls ("auto"), the editor is marked as one that cannot
prompt and the same question waits on the question board as code actions and
an Information diagnostic, answered with `agentls.answer`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from agentls.lsp.editor.protocols import Asks, Kind
from agentls.lsp.questions.board import Emit, Question

MAX_PROMPT_ROUNDS = 5
Unanswered = Literal["dismissed", "timeout", "rounds"]


@dataclass(frozen=True)
class Prompt:
    message: str
    choices: list[tuple[str, str]]  # (answer, button title), in the order shown
    # Answers that only show something, after which the prompt is asked again.
    again: dict[str, Callable[[], Awaitable[object]]] = field(default_factory=dict)


@dataclass(frozen=True)
class Answer:
    answer: str | None  # one of the offered answers; None when none came
    via: Literal["prompt", "codeAction"]
    question: Question | None = None  # when it waited as code actions
    # Why there is no answer: the prompt was dismissed or failed, the time ran out,
    # or the person only kept asking to see more.
    unanswered: Unanswered | None = None


async def ask_person(
    editor: Asks,
    kind: Kind,
    prompt: Prompt,
    question: Callable[[], Question],
    emit: Emit,
) -> Answer:
    """Ask once, by the editor's route for ``kind``, falling back to code actions once."""
    timeout = editor.settings.limits.approval_timeout_seconds
    if editor.route(kind) == "prompt":
        answer, failed = await _prompt(editor, kind, prompt, timeout)
        if not failed or editor.route_is_fixed(kind):
            return answer
        editor.prompts_failed()
    waiting = question()
    chosen = await editor.questions.ask(waiting, timeout, emit)
    return Answer(chosen, "codeAction", waiting, None if chosen is not None else "timeout")


async def _prompt(editor: Asks, kind: Kind, prompt: Prompt, timeout: float) -> tuple[Answer, bool]:
    by_title = {title: answer for answer, title in prompt.choices}
    titles = [title for _, title in prompt.choices]
    what = "the approval prompt" if kind == "approval" else "the edit review"
    for _ in range(MAX_PROMPT_ROUNDS):
        reply = await editor.prompt(prompt.message, titles, timeout, what)
        chosen = by_title.get(reply.title) if reply.title is not None else None
        if chosen is None:
            return Answer(None, "prompt", unanswered="dismissed"), reply.failed
        show = prompt.again.get(chosen)
        if show is None:
            return Answer(chosen, "prompt"), False
        await show()
    return Answer(None, "prompt", unanswered="rounds"), False
