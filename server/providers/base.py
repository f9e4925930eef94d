"""The provider border: ModelInput in, a stream of ModelEvents out.

A provider never executes tools, reads the workspace or the session, appends
to messages, or retries the whole loop.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from agentls.contracts.model_io import ModelEvent, ModelInput


class ModelProvider(Protocol):
    @property
    def model_id(self) -> str:
        """``provider:name``, e.g. ``anthropic:claude-sonnet-4-5``."""
        ...

    @property
    def model_name(self) -> str:
        """The name the price table knows, e.g. ``claude-sonnet-4-5``."""
        ...

    def stream(self, request: ModelInput) -> AsyncIterator[ModelEvent]:
        """Yield events for one model response, ending with MessageDone.

        Raises ModelError when the call fails after the provider's retries.
        """
        ...


def warm_up(provider: ModelProvider) -> None:
    """The blocking set-up a provider offers (a ``warm_up()`` method: its client built, what
    its first request imports loaded), done now; call it on a thread."""
    method = getattr(provider, "warm_up", None)
    if callable(method):
        method()
