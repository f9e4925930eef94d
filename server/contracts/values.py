"""Immutable value classes that cost what a plain slotted class costs to build.

A frozen dataclass sets each field through ``object.__setattr__``, which makes
building one three times as dear as a plain slotted class, and a turn builds
about twenty (messages, blocks, usage, intents, observations). Classes marked
``@value`` are frozen to the type checker (mypy strict refuses any assignment
to their fields, and the suite runs it), slotted dataclasses at run time, and
hashed by their fields as frozen dataclasses are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar, dataclass_transform

T = TypeVar("T")


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def value(cls: type[T]) -> type[T]:
    return dataclass(slots=True, unsafe_hash=True)(cls)
