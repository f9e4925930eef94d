"""The provider border: ModelInput in, a stream of ModelEvents out.

A provider never executes tools, reads the workspace or the session, appends
to messages, or retries the whole loop.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Protocol

from agentls.contracts.images import ImageLimits
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

    # What the provider's server said of its model's window, once asked and it said.
    server_window: ServerWindow | None

    # What its API takes of a prompt's images; None: it takes none.
    image_limits: ImageLimits | None

    def warm_up(self) -> None:
        """The blocking set-up: its client built, what its first request imports loaded
        (called where sessions open, on a thread)."""
        ...

    def learn_window(self, state_dir: Path | None) -> None:
        """Ask the provider's server for its model's window (remembered in ``state_dir``),
        where it can; blocking: called on a thread."""
        ...


class ProviderBase:
    """What a provider offers beyond its stream, done as nothing: a provider that has
    nothing to set up, cannot ask its server for its model's window and takes no images."""

    server_window: ServerWindow | None = None
    image_limits: ImageLimits | None = None

    def warm_up(self) -> None:
        return None

    def learn_window(self, state_dir: Path | None) -> None:
        return None
