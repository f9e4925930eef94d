"""Child processes by scope and name, shared by the users of a scope.

A scope is what its children serve (a workspace root); a name tells them apart
within it. A child is made on first need and kept while its configuration
stays; one whose configuration changed, or that is no longer wanted, is retired
(stopped in the background) and a new one made on the next need. A scope's
users are counted, and the last to leave retires its children. Changes of the
children it holds are told to one listener (a status line).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Collection, Hashable
from typing import Generic, Protocol, TypeVar

from agentls.supervision.lifecycle import ChildStatus, Event, Lifecycle

log = logging.getLogger(__name__)


class Supervised(Protocol):
    """A protocol's connection to one child process, with its lifecycle."""

    @property
    def lifecycle(self) -> Lifecycle: ...


S = TypeVar("S", bound=Hashable)  # a scope
N = TypeVar("N", bound=Hashable)  # a name within it
C = TypeVar("C", bound=Supervised)


class Registry(Generic[S, N, C]):
    def __init__(self, on_change: Callable[[], None] | None = None) -> None:
        self.on_change = on_change
        self._children: dict[tuple[S, N], tuple[object, C]] = {}  # and the config made for
        self._users: dict[S, int] = {}
        self._retiring: set[asyncio.Task[None]] = set()

    def child(self, scope: S, name: N, config: object, make: Callable[[], C]) -> C:
        """The child for ``scope`` and ``name``, made (not started) on first need; one made
        for another ``config`` (compared by equality) is retired and replaced."""
        key = (scope, name)
        found = self._children.get(key)
        if found is not None and found[0] == config:
            return found[1]
        if found is not None:
            del self._children[key]
            self._retire([found[1]])
        child = make()
        child.lifecycle.watch(lambda event, detail: self._changed(key, child, event))
        self._children[key] = (config, child)
        return child

    def get(self, scope: S, name: N) -> C | None:
        found = self._children.get((scope, name))
        return found[1] if found is not None else None

    def children(self, scope: S | None = None) -> dict[tuple[S, N], C]:
        """The children held, of one scope or of all."""
        return {
            key: child for key, (_, child) in self._children.items()
            if scope is None or key[0] == scope
        }  # fmt: skip

    def keep(self, scope: S, names: Collection[N]) -> None:
        """Retire the children of ``scope`` not named."""
        self._retire([self._children.pop(k)[1] for k in self.children(scope) if k[1] not in names])

    def status(self) -> dict[tuple[S, N], ChildStatus]:
        return {key: child.lifecycle.status() for key, (_, child) in self._children.items()}

    def join(self, scope: S) -> None:
        """One more user of ``scope``'s children."""
        self._users[scope] = self._users.get(scope, 0) + 1

    def leave(self, scope: S) -> bool:
        """One user fewer; the last retires the scope's children. True when it was the last."""
        left = self._users.get(scope, 0) - 1
        if left > 0:
            self._users[scope] = left
            return False
        self._users.pop(scope, None)
        doomed = [self._children.pop(key)[1] for key in self.children(scope)]
        self._retire(doomed)
        if doomed:
            self._tell()
        return True

    def _changed(self, key: tuple[S, N], child: C, event: Event) -> None:
        held = self._children.get(key)
        if held is not None and held[1] is child:  # a retired child's end is no news
            self._tell()

    def _tell(self) -> None:
        listener = self.on_change
        if listener is None:
            return
        try:
            listener()
        except Exception as exc:  # a status line never breaks a run
            log.info("a change of child processes was not told: %r", exc)

    def _retire(self, doomed: list[C]) -> None:
        if not doomed:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop any more: end the processes at once
            for child in doomed:
                child.lifecycle.kill()
            return
        task = loop.create_task(_stop_all(doomed))
        self._retiring.add(task)
        task.add_done_callback(self._retiring.discard)

    async def retired(self) -> None:
        """Wait until every child retired so far has stopped."""
        if self._retiring:
            await asyncio.wait(list(self._retiring))

    async def aclose(self) -> None:
        """Stop every child and wait for it (the end of a process); the registry may be
        used again afterwards."""
        doomed = [child for _, child in self._children.values()]
        self._children.clear()
        self._users.clear()
        await _stop_all(doomed)
        await self.retired()


async def _stop_all(children: Collection[Supervised]) -> None:
    await asyncio.gather(*(c.lifecycle.stop() for c in children), return_exceptions=True)
