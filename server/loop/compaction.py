"""Running the compactions the context layer asks for.

The projector decides what to summarise and builds the request; this makes the
one model call (same provider, no tools) and writes the summary to the log as
its own event kind, marked as a summary: the reducer never folds it into the
history, and replay finds it by its seq.
"""

from __future__ import annotations

import asyncio

from agentls.context.projector import ContextProjector
from agentls.contracts.model_io import MessageDone, ModelError, ModelErrorKind, ModelInput
from agentls.contracts.usage import Usage
from agentls.providers.base import ModelProvider
from agentls.runtime.pipeline import AuditLog
from agentls.session import events as ev

NO_SUMMARY = "(the summariser returned no text)"


class Compactor:
    def __init__(
        self, provider: ModelProvider, projector: ContextProjector, audit: AuditLog
    ) -> None:
        self.provider = provider
        self.projector = projector
        self.audit = audit

    async def compact(
        self, run_id: str, turn: int, *, reason: str, forced: bool = False
    ) -> Usage | None:
        """Summarise what the projector wants gone; the call's usage, or None if nothing to do."""
        job = self.projector.compaction_job(forced=forced)
        if job is None:
            return None
        done = await self._complete(job.request)
        text = done.message.text.strip() or NO_SUMMARY
        event = self.audit.append(ev.ContextSummary(
            run=run_id, turn=turn, text=text, pinned=job.pinned,
            from_message=job.start, up_to_message=job.cut, reason=reason,
            model=self.provider.model_id,
        ))  # fmt: skip
        self.projector.adopt(job, text, event.seq)
        return done.usage

    async def _complete(self, request: ModelInput) -> MessageDone:
        done: MessageDone | None = None
        try:
            async for event in self.provider.stream(request):
                if isinstance(event, MessageDone):
                    done = event
        except ModelError as exc:
            raise ModelError(
                f"compacting the conversation failed: {exc}", kind=exc.kind, status=exc.status
            ) from None
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            raise ModelError(
                f"compacting the conversation failed: the model provider failed: {exc!r}",
                kind=ModelErrorKind.PROVIDER,
            ) from exc
        if done is None:
            raise ModelError(
                "the summary stream ended without a complete message", kind=ModelErrorKind.STREAM
            )
        return done
