"""The mode a person picked with `agentls.setMode` for the sessions to come.

Settings are rebuilt from what the editor sends on every refresh (start-up, each
`didChangeConfiguration`), which knows nothing of the command. The choice holds
through refreshes that leave the `mode` setting as it was; a changed `mode`
setting is the newer choice and replaces it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentls.permissions.modes import Mode


class ChosenMode:
    def __init__(self) -> None:
        self.chosen: Mode | None = None
        self._sent: object = _NOTHING_YET  # the `mode` the editor sent in the last refresh

    def choose(self, mode: Mode) -> None:
        self.chosen = mode

    def after_settings(self, layers: Sequence[Any]) -> Mode | None:
        """The editor's settings (re)arrived as ``layers``: the mode to use over them, if
        the person's choice still stands."""
        sent = sent_mode(layers)
        if self.chosen is not None and self._sent is not _NOTHING_YET and sent != self._sent:
            self.chosen = None
        self._sent = sent
        return self.chosen


def sent_mode(layers: Sequence[Any]) -> object:
    """The ``mode`` setting as the editor sent it (the last layer naming it), else None."""
    for layer in reversed(layers):
        if isinstance(layer, Mapping) and "mode" in layer:
            return layer["mode"]
    return None


_NOTHING_YET = object()
