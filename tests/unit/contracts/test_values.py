"""Value classes behave as frozen dataclasses do: equal by fields, hashed by fields."""

from __future__ import annotations

import dataclasses

from agentls.contracts.messages import Message, TextBlock, ToolUseBlock
from agentls.contracts.usage import Usage


def test_equal_values_hash_alike_and_dedupe_in_sets() -> None:
    assert Usage(1, 2) == Usage(1, 2) and hash(Usage(1, 2)) == hash(Usage(1, 2))
    assert {Message("user", (TextBlock("a"),)), Message("user", (TextBlock("a"),))} == {
        Message("user", (TextBlock("a"),))
    }


def test_replace_makes_a_new_value_and_leaves_the_old_one() -> None:
    old = Usage(1, 2)
    new = dataclasses.replace(old, input_tokens=5)
    assert (old.input_tokens, new.input_tokens) == (1, 5)


def test_values_hold_no_instance_dict() -> None:
    block = ToolUseBlock("id", "name", {})
    assert not hasattr(block, "__dict__")
