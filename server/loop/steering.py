"""Steering: what the person says while a run works, given to the model at the next
turn boundary as their words.

A face hands a message to its session (`Conversation.steer`), which puts it in the run's
`SteeringQueue`; the loop takes what waits at each turn boundary: after a turn's tool
results (the words follow the results in the same message), or, when the model has
answered, as the next prompt of the same run. What the run never reached (it was
cancelled, or stopped by a limit) is not delivered: each `Steer` says whether it was.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class Steering(Protocol):
    def take(self, turn: int) -> list[str]:
        """The messages to give the model after ``turn`` (each once)."""
        ...


class NoSteering:
    def take(self, turn: int) -> list[str]:
        return []


@dataclass
class Steer:
    """One message for a run, and whether the model got it."""

    text: str
    run_id: str
    delivered: bool = False


class SteeringQueue:
    """The messages waiting for one run's next turn boundary, in the order sent."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self._waiting: list[Steer] = []
        self._open = True

    def put(self, text: str) -> Steer | None:
        """Queue ``text``; None once the run has passed its last boundary."""
        if not self._open:
            return None
        steer = Steer(text, self.run_id)
        self._waiting.append(steer)
        return steer

    def take(self, turn: int) -> list[str]:
        taken, self._waiting = self._waiting, []
        for steer in taken:
            steer.delivered = True
        return [steer.text for steer in taken]

    def close(self) -> None:
        """The run ended: what still waits is not delivered, and nothing more is taken."""
        self._open = False
        self._waiting = []
