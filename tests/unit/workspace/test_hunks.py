"""Minimal hunks: small changes stay small, and applying them gives the new text."""

from __future__ import annotations

import random

from agentls.workspace.hunks import Hunk, apply_hunks, line_hunks


def test_one_line_change_in_a_big_file_is_one_one_line_hunk() -> None:
    old = "".join(f"line {i}\n" for i in range(20_000))
    new = old.replace("line 12345\n", "changed 12345\n")
    assert line_hunks(old, new) == [Hunk(12345, 12346, ("changed 12345\n",))]


def test_insert_delete_and_no_final_newline() -> None:
    assert line_hunks("a\nb\n", "a\nx\nb\n") == [Hunk(1, 1, ("x\n",))]
    assert line_hunks("a\nb\nc\n", "a\nc\n") == [Hunk(1, 2, ())]
    assert line_hunks("a\nb", "a\nc") == [Hunk(1, 2, ("c",))]
    assert line_hunks("same\n", "same\n") == []
    assert line_hunks("", "new\n") == [Hunk(0, 0, ("new\n",))]


def test_random_edits_round_trip() -> None:
    rng = random.Random(7)
    for _ in range(200):
        old_lines = [f"{rng.randrange(5)}\n" for _ in range(rng.randrange(30))]
        new_lines = list(old_lines)
        for _ in range(rng.randrange(4)):
            at = rng.randrange(len(new_lines) + 1)
            if new_lines and rng.random() < 0.5:
                del new_lines[min(at, len(new_lines) - 1)]
            else:
                new_lines.insert(at, f"{rng.randrange(5)}\n")
        old, new = "".join(old_lines), "".join(new_lines)
        if rng.random() < 0.3:
            new = new.rstrip("\n")
        assert apply_hunks(old, line_hunks(old, new)) == new


def test_lines_split_where_editors_split_them() -> None:
    from agentls.workspace.hunks import split_lines

    assert split_lines("a\fb\u2028c\r\nd\re\nf") == ["a\fb\u2028c\r\n", "d\r", "e\n", "f"]
    old = "x\u2028y\nz\n"
    assert line_hunks(old, "x\u2028y\nZ\n") == [Hunk(1, 2, ("Z\n",))]
