"""The one story every face tells for rewind and fork, as the fake Anthropic server plays it.

Three asks in one session: ask 1 edits a.py, ask 2's command makes made.txt, ask 3
edits a.py again and rewrites b.py; then the person edits b.py. A rewind to ask 2 must
put a.py back as ask 1 left it, remove made.txt, keep b.py (named) and send the next
request without asks 2 and 3; a fork at ask 2 must send ask 1's history only and change
no file. What each face checks is what the fake server received and what is on disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fakes.anthropic_server import FakeAnthropic, Reply, turn

PROMPTS = ("first: set A to 2", "second: make made.txt", "third: A to 3, new b.py")
PERSON_B = "B = 'the person wrote this after ask 3'\n"


def workspace_files(root: Path) -> None:
    (root / "a.py").write_text("A = 1\n")
    (root / "b.py").write_text("B = 1\n")


def ask_replies(number: int) -> list[Reply]:
    """What the model answers to ask ``number`` (1–3): its tool calls, then a last word."""
    calls: list[tuple[str, str, dict[str, Any]]] = {
        1: [("toolu_a1", "edit_file", {"path": "a.py", "old_text": "A = 1", "new_text": "A = 2"})],
        2: [("toolu_b1", "run_command", {"command": "echo made > made.txt"})],
        3: [
            ("toolu_c1", "edit_file", {"path": "a.py", "old_text": "A = 2", "new_text": "A = 3"}),
            ("toolu_c2", "write_file", {"path": "b.py", "content": "B = 3\n"}),
        ],
    }[number]
    return [turn(tool_calls=calls), turn(f"answer {number}")]


def after_three_asks(root: Path) -> None:
    """What the three asks left, and the person's edit after them."""
    assert (root / "a.py").read_text() == "A = 3\n"
    assert (root / "made.txt").exists()
    assert (root / "b.py").read_text() == "B = 3\n"
    (root / "b.py").write_text(PERSON_B)


def after_rewind_to_ask_2(root: Path) -> None:
    assert (root / "a.py").read_text() == "A = 2\n"  # as ask 1 left it
    assert not (root / "made.txt").exists()  # ask 2's command made it
    assert (root / "b.py").read_text() == PERSON_B  # the person's edit, kept


def files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".agentls" not in p.parts
    }


def texts(body: dict[str, Any]) -> list[str]:
    """Every text the request carries: prompts, answers, tool calls and results."""
    found: list[str] = []
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            found.append(content)
            continue
        for block in content:
            if block["type"] == "text":
                found.append(block["text"])
            elif block["type"] == "tool_use":
                found.append(block["id"])
            elif block["type"] == "tool_result":
                found.append(block["tool_use_id"])
    return found


def prompts_in(body: dict[str, Any]) -> list[str]:
    """Which of the story's prompts the request carries, in order."""
    seen = texts(body)
    return [p for p in (*PROMPTS, "fourth", "forked") if any(t.startswith(p) for t in seen)]


def only_ask_1(body: dict[str, Any], then: str) -> None:
    """The request holds ask 1 whole and ``then``, and nothing of asks 2 and 3."""
    seen = texts(body)
    assert prompts_in(body) == [PROMPTS[0], then], seen
    assert "toolu_a1" in seen and "answer 1" in seen
    for gone in ("toolu_b1", "toolu_c1", "toolu_c2", "answer 2", "answer 3"):
        assert gone not in seen, seen


def last_request(fake: FakeAnthropic) -> dict[str, Any]:
    body: dict[str, Any] = fake.requests[-1].body
    return body
