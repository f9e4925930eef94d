"""The provider border: ModelInput in, a stream of ModelEvents out.

A provider never executes tools, reads the workspace or the session, appends
to messages, or retries the whole loop.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Protocol

from agentls.contracts.model_io import ModelEvent, ModelInput
from agentls.contracts.window import ServerWindow


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


def learn_window(provider: ModelProvider, state_dir: Path | None) -> None:
    """Ask the provider's server for its model's window, if the provider can (a
    ``learn_window(state_dir)`` method); blocking: call it on a thread."""
    method = getattr(provider, "learn_window", None)
    if callable(method):
        method(state_dir)


def window_of(provider: ModelProvider) -> ServerWindow | None:
    """What the provider's server said of its model's window, if it was asked and said."""
    window = getattr(provider, "server_window", None)
    return window if isinstance(window, ServerWindow) else None
