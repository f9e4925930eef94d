"""Children by scope and name with fake children: made on first need and shared, users
counted, the last user's leaving and a configuration change retire them, status told."""

from __future__ import annotations

from pathlib import Path

from agentls.supervision import Registry
from tests.unit.supervision.fakes import FakeChild

ROOT, OTHER = Path("/w"), Path("/elsewhere")


class Made(list[FakeChild]):
    def __call__(self, name: str = "fake") -> FakeChild:
        self.append(FakeChild(name))
        return self[-1]


def registry() -> tuple[Registry[Path, str, FakeChild], Made, list[None]]:
    told: list[None] = []
    return Registry(lambda: told.append(None)), Made(), told


async def test_a_child_is_made_on_first_need_and_shared() -> None:
    children, made, _ = registry()
    first = children.child(ROOT, "a", "config", made)
    assert children.child(ROOT, "a", "config", made) is first and len(made) == 1
    assert first.launches == 0  # made, not started
    assert children.child(OTHER, "a", "config", made) is not first  # one per scope


async def test_users_are_counted_and_the_last_to_leave_stops_the_scopes_children() -> None:
    children, made, told = registry()
    children.join(ROOT)
    children.join(ROOT)
    here, there = children.child(ROOT, "a", 1, made), children.child(OTHER, "a", 1, made)
    await here.lifecycle.ensure()
    await there.lifecycle.ensure()
    assert not children.leave(ROOT)  # the other user still has it
    assert here.lifecycle.running and children.get(ROOT, "a") is here
    told.clear()
    assert children.leave(ROOT)
    await children.retired()
    assert not here.running and here.halts == 1 and children.children(ROOT) == {}
    assert there.lifecycle.running  # another scope's child is not touched
    assert len(told) == 1  # the status changed once


async def test_a_configuration_change_retires_the_old_child() -> None:
    children, made, _ = registry()
    old = children.child(ROOT, "a", {"args": ["x"]}, made)
    await old.lifecycle.ensure()
    new = children.child(ROOT, "a", {"args": ["y"]}, made)
    await children.retired()
    assert new is not old and not old.running and old.halts == 1
    assert children.children() == {(ROOT, "a"): new}
    kept = children.child(ROOT, "b", 1, made)
    children.keep(ROOT, ["b"])  # "a" is no longer configured
    await children.retired()
    assert children.children() == {(ROOT, "b"): kept}


async def test_status_is_reported_and_changes_are_told() -> None:
    children, made, told = registry()
    ok, broken = children.child(ROOT, "ok", 1, made), children.child(ROOT, "broken", 1, made)
    broken.failure = "broken could not start"
    await ok.lifecycle.ensure()
    assert not await _started(broken)
    status = children.status()
    assert status[(ROOT, "ok")].state == "running"
    assert (status[(ROOT, "broken")].state, status[(ROOT, "broken")].failure) == (
        "failed", "broken could not start",
    )  # fmt: skip
    assert len(told) == 2  # a start and a failure
    ok.crash()
    assert children.status()[(ROOT, "ok")].state == "stopped" and len(told) == 3
    children.child(ROOT, "ok", 2, made)  # a new configuration: the old one retires
    await children.retired()
    assert len(told) == 3  # a retired child's end is no news


async def test_closing_stops_every_child() -> None:
    children, made, _ = registry()
    started = [children.child(scope, "a", 1, made) for scope in (ROOT, OTHER)]
    for child in started:
        await child.lifecycle.ensure()
    await children.aclose()
    assert children.children() == {} and all(c.halts == 1 for c in started)


def test_without_an_event_loop_retired_children_are_killed() -> None:
    children, made, _ = registry()
    children.join(ROOT)
    child = children.child(ROOT, "a", 1, made)
    children.leave(ROOT)
    assert child.kills == 1


async def _started(child: FakeChild) -> bool:
    try:
        await child.lifecycle.ensure()
    except Exception:
        return False
    return True
