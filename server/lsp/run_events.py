"""A run as the editor sees it: `agentls/event` notifications, progress, a last message.

Each notification is one of the models in `agentls.protocol.events`. Text
deltas are coalesced (at most one notification per FLUSH_SECONDS, or sooner
when a lot has piled up), so an editor is not flooded; every other event first
flushes the pending text, so the order is kept. Loaded with the first ask.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.contracts.observer import HookNotice, NullObserver
from agentls.contracts.outcomes import RunResult, TerminalReason
from agentls.contracts.tooling import Observation, ToolIntent
from agentls.contracts.usage import Usage, has_real_cost
from agentls.lsp.wire.client_requests import ask_client
from agentls.protocol.common import Usage as UsageTotals
from agentls.protocol.events import (
    EVENT_METHOD,
    PAYLOAD_EVENTS,
    ApprovalAnswered,
    ApprovalAsked,
    EventBase,
    HookNoticeEvent,
    RunFinished,
    RunStarted,
    TextEvent,
    ToolFinished,
    ToolStarted,
    UsageEvent,
)
from agentls.session.labels import request_words

if TYPE_CHECKING:
    from agentls.lsp.server import AgentServer

log = logging.getLogger(__name__)
FLUSH_SECONDS = 0.05
FLUSH_CHARS = 4096


class LspRunObserver(NullObserver):
    def __init__(self, server: AgentServer, session_id: str, request: str) -> None:
        self.server = server
        self.session_id = session_id
        self.run_id = ""
        self.request = request_words(request)  # a code action's request adds where it was
        self.title = self.request.splitlines()[0] if self.request else ""
        self.turn = 0
        self._text: list[str] = []
        self._text_size = 0
        self._flush_handle: asyncio.TimerHandle | None = None
        self._token: str | None = None
        self._progress_task: asyncio.Task[None] | None = None
        self._finished: str | None = None
        self._last_report = ""
        self.show_cost = True  # a scripted model's price is nominal: no dollars shown

    def run_started(self) -> None:
        """The request, to the editor's log of the run and to the server's log (the
        run's first event: an ask from a code action is seen with what it asked)."""
        log.info("run %s in session %s asked: %s", self.run_id, self.session_id, self.request)
        self._notify(RunStarted(**self._run(), request=self.request))

    # --- progress --------------------------------------------------------

    def start_progress(self, on_cancel: Any) -> None:
        """Begin work-done progress in the background: the ask returns at once."""
        window = self.server.client_capabilities.window
        if window is None or not window.work_done_progress:
            return
        self._progress_task = asyncio.ensure_future(self._begin_progress(on_cancel))

    async def _begin_progress(self, on_cancel: Any) -> None:
        token = f"agentls-{self.run_id}"
        progress = self.server.work_done_progress
        created = await ask_client(progress.create_async(token), 5.0, "workDoneProgress/create")
        if created is None and token not in progress.tokens:
            return
        self._token = token
        progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title="agentls", message=self.title, cancellable=True, percentage=None
            ),
        )
        future = progress.tokens.get(token)
        if future is not None:
            future.add_done_callback(lambda f: on_cancel() if f.cancelled() else None)
        if self._last_report:  # what happened while the client was answering
            self._report(self._last_report)
        if self._finished is not None:
            self._end_progress(self._finished)

    def _end_progress(self, message: str) -> None:
        if self._token is not None:
            token, self._token = self._token, None
            self.server.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))

    def _report(self, message: str) -> None:
        self._last_report = message
        if self._token is not None:
            self.server.work_done_progress.report(
                self._token, types.WorkDoneProgressReport(message=message[:200])
            )

    # --- events ------------------------------------------------------------

    def send(self, event: EventBase | RunFinished) -> None:
        self._flush_text()
        self._notify(event)

    def _notify(self, event: EventBase | RunFinished) -> None:
        self.server.protocol.notify(EVENT_METHOD, event.wire())

    def _run(self) -> dict[str, Any]:
        """The fields every event of this run carries."""
        return {"session_id": self.session_id, "run_id": self.run_id, "turn": self.turn}

    def text_delta(self, turn: int, text: str) -> None:
        self.turn = turn
        self._text.append(text)
        self._text_size += len(text)
        if self._text_size >= FLUSH_CHARS:
            self._flush_text()
        elif self._flush_handle is None:
            loop = asyncio.get_running_loop()
            self._flush_handle = loop.call_later(FLUSH_SECONDS, self._flush_text)

    def _flush_text(self) -> None:
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        if self._text:
            text = "".join(self._text)
            self._text.clear()
            self._text_size = 0
            self._notify(TextEvent(**self._run(), text=text))

    def tool_started(self, turn: int, intent: ToolIntent, summary: str) -> None:
        self.turn = turn
        self.send(
            ToolStarted(**self._run(), call_id=intent.call_id, name=intent.name, summary=summary)
        )
        self._report(summary)

    def tool_finished(self, turn: int, observation: Observation, summary: str) -> None:
        lines = observation.content.splitlines()
        exit_code = observation.meta.get("exitCode")
        if exit_code is not None and lines and lines[-1].startswith(("[exit code", "[killed")):
            lines.pop()  # said by exitCode
        # Notes (unsaved files, ...) are shown whole, whatever else is cut.
        notes = [
            line.strip("[]").removeprefix("note: ") for line in lines if line.startswith("[note:")
        ]
        lines = [line for line in lines if not line.startswith("[note:")]
        first = lines[0] if lines else ""
        self.send(
            ToolFinished(
                **self._run(),
                call_id=observation.call_id,
                name=observation.name,
                summary=summary,
                ok=observation.ok,
                error=None if observation.ok else str(observation.error),
                line=first if len(first) <= 200 else first[:199] + "…",
                more_lines=max(len(lines) - 1, 0),
                exit_code=exit_code if isinstance(exit_code, int) else None,
                notes=notes,
            )
        )

    def approval_asked(self, turn: int, request: ApprovalRequest) -> None:
        self.send(
            ApprovalAsked(
                **self._run(),
                call_id=request.call_id,
                tool=request.tool,
                summary=request.summary,
                detail=request.detail,
                rule=request.suggested_rule,
            )
        )
        self._report(f"waiting for approval: {request.summary}")

    def approval_answered(
        self, turn: int, request: ApprovalRequest, answer: ApprovalAnswer
    ) -> None:
        self.send(
            ApprovalAnswered(
                **self._run(),
                call_id=request.call_id,
                answer=answer,
                rule=request.suggested_rule if answer.remembers else None,
            )
        )

    def edit(self, kind: str, payload: dict[str, Any]) -> None:
        """An edit's or a waiting question's event, as the workspace and the board say it."""
        model = PAYLOAD_EVENTS.get(kind)
        if model is None:
            log.warning("no agentls/event kind %r: not sent", kind)
            return
        self.send(model.model_validate({**payload, **self._run()}))
        if kind == "edit_proposed":
            self._report(f"review: {payload.get('summary', '')}")
        elif kind == "question":
            self._report(f"waiting for you (code actions): {payload.get('summary', '')}")
        elif kind == "waiting_for_save":
            self._report(f"waiting for your save: {', '.join(payload.get('paths', []))}")

    def usage(self, turn: int, total: Usage, cost_usd: float | None) -> None:
        totals = UsageTotals.of(total, cost_usd if self.show_cost else None)
        self.send(UsageEvent(**self._run(), usage=totals))

    def hook_notice(self, turn: int, notice: HookNotice) -> None:
        self.send(
            HookNoticeEvent(
                **self._run(), event=notice.event, command=notice.command, text=notice.text,
                error=notice.error,
            )
        )  # fmt: skip
        kind = types.MessageType.Warning if notice.error else types.MessageType.Info
        text = f"agentls: {notice.event} hook `{notice.command}`: {notice.text}"
        self.server.tell(cut_at_word(text, STOP_CHARS), kind)

    def run_finished(self, result: RunResult) -> None:
        self.send(
            RunFinished.of(
                self.session_id, self.run_id, result, show_cost=self.show_cost, turn=self.turn
            )
        )
        self._finished = result.reason.value
        self._end_progress(self._finished)
        shown = final_message(result)
        self.server.tell(shown, message_type(result))
        if result.detail and result.detail not in shown:  # cut for the message: whole here
            log.info("run %s ended %s: %s", self.run_id, result.reason.value, result.detail)


def shows_cost(model: str) -> bool:
    """A scripted model has a nominal price (for budget tests), not a cost."""
    return has_real_cost(model)


ANSWER_CHARS = 300
STOP_CHARS = 400


def final_message(result: RunResult) -> str:
    """One message for the run's end: the answer's first line, or why it stopped; a
    long one cut at a word (the whole detail goes to the log)."""
    first = next((line for line in result.text.splitlines() if line.strip()), "")
    if result.reason is not TerminalReason.COMPLETED:
        return cut_at_word(f"agentls: {result.reason.value}: {result.detail}", STOP_CHARS)
    if not first:
        return "agentls: completed."
    return f"agentls answered: {cut_at_word(first, ANSWER_CHARS)}"


def cut_at_word(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters: whole, or cut after a word, with "…"."""
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if text[limit - 1] != " " and space > limit // 2:  # not mid-word, nor a long token lost
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def message_type(result: RunResult) -> types.MessageType:
    if result.reason is TerminalReason.COMPLETED:
        return types.MessageType.Info
    if result.reason is TerminalReason.ABORTED:
        return types.MessageType.Info
    return types.MessageType.Warning
