"""The terminal approver, the summary line, text made visible and the output thread,
without a subprocess."""

from __future__ import annotations

import io
import json
import os

from agentls.cli.approve import TerminalApprover
from agentls.cli.output import Output
from agentls.cli.render import TerminalPrinter, summary_line
from agentls.cli.visible import json_visible, one_line, visible
from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.contracts.outcomes import BudgetOverrun, RunResult, TerminalReason
from agentls.contracts.tooling import Risk
from agentls.contracts.usage import Usage

REQUEST = ApprovalRequest(
    "c1", "run_command", Risk.EXECUTE, "run_command: ls", "ls", "run_command(ls)"
)


async def test_answers_are_read_until_one_is_understood() -> None:
    out = io.StringIO()
    approver = TerminalApprover(io.StringIO("maybe\nA\n"), out)
    assert await approver.approve(REQUEST) is ApprovalAnswer.ALLOW_ALWAYS
    assert "please answer y, a, w or n" in out.getvalue()
    assert "run_command(ls)" in out.getvalue()


HOSTILE = "touch pwned # \x1b[2K\r\x1b[1A\x1b[2K git status"


async def test_always_for_a_call_no_rule_covers_is_once() -> None:
    out = io.StringIO()
    uncoverable = ApprovalRequest("c1", "run_command", Risk.EXECUTE, HOSTILE, HOSTILE, "")
    approver = TerminalApprover(io.StringIO("a\n"), out)
    assert await approver.approve(uncoverable) is ApprovalAnswer.ALLOW_ONCE
    shown = out.getvalue()
    assert "only be allowed once" in shown and "[a] always" not in shown
    assert "\x1b" not in shown and "\r" not in shown
    assert r"touch pwned # \x1b[2K\r\x1b[1A\x1b[2K git status" in shown


def test_control_characters_are_shown_not_obeyed() -> None:
    assert visible(HOSTILE) == r"touch pwned # \x1b[2K\r\x1b[1A\x1b[2K git status"
    osc = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b]8;;http://x\x1b\\"  # clipboard, a hidden link
    assert "\x1b" not in visible(osc) and "\x07" not in visible(osc)
    c1_and_bidi = "\x9b2J\x9d0;t\u202eexe.txt\u2066\x7f\x00"
    assert visible(c1_and_bidi) == r"\x9b2J\x9d0;t\u202eexe.txt\u2066\x7f\x00"
    assert visible("two\nlines\tkept, ünïcode ✓") == "two\nlines\tkept, ünïcode ✓"
    assert one_line("a row\nthat lies") == r"a row\nthat lies"


def test_json_output_keeps_its_values_and_escapes_every_control() -> None:
    value = {"text": "x\x1b[2J\x9b2J\u202e\x7f ü"}
    printed = json_visible(json.dumps(value, ensure_ascii=False))
    assert json.loads(printed) == value
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 or c == "\u202e" for c in printed)


def test_streamed_answer_text_cannot_draw_over_the_terminal() -> None:
    out, err = io.StringIO(), io.StringIO()
    printer = TerminalPrinter(out, err)
    printer.text_delta(1, "Done.\x1b]0;owned\x07\x1b[1A\r\n")
    assert out.getvalue() == r"Done.\x1b]0;owned\x07\x1b[1A\r" + "\n"


def test_output_never_waits_for_its_reader() -> None:
    reading, writing = os.pipe()
    try:
        output = Output(limit=8 << 20, notes=writing)
        kept = b"x" * (4 << 20)  # far more than a pipe holds
        output.put(writing, kept)  # returns although nobody reads
        output.put(writing, b"y" * (8 << 20))  # beyond the limit: dropped
        assert not output.drain(timeout=0)
        received = b""
        while not received.endswith(b"nothing was reading them\n"):
            received += os.read(reading, 1 << 16)
        assert output.drain(timeout=30)
    finally:
        os.close(reading)
        os.close(writing)
    assert received.startswith(kept) and b"yy" not in received
    assert f"{8 << 20} bytes of output were dropped".encode() in received


async def test_end_of_input_denies() -> None:
    approver = TerminalApprover(io.StringIO(""), io.StringIO())
    assert await approver.approve(REQUEST) is ApprovalAnswer.DENY


def test_summary_line_names_the_limit() -> None:
    result = RunResult(
        TerminalReason.BUDGET_EXCEEDED,
        "",
        Usage(1200, 300),
        None,
        4,
        "the tokens budget of 1000 was exceeded (1500 used, 500 over)",
        BudgetOverrun("tokens", 1000, 1500),
    )
    line = summary_line(result)
    assert line.startswith("[budget_exceeded · 4 turns · 1,200 in / 300 out tokens · cost unknown]")
    assert "500 over" in line


def test_summary_line_of_a_scripted_run_has_no_price() -> None:
    result = RunResult(TerminalReason.COMPLETED, "Done.", Usage(1000, 132), 0.005, 1, "", None)
    assert summary_line(result) == "[completed · 1 turn · 1,000 in / 132 out tokens · $0.0050]"
    assert (
        summary_line(result, show_cost=False) == "[completed · 1 turn · 1,000 in / 132 out tokens]"
    )


def test_thoughts_are_printed_only_when_asked_each_on_a_line_of_its_own() -> None:
    quiet_out, quiet_err = io.StringIO(), io.StringIO()
    quiet = TerminalPrinter(quiet_out, quiet_err)
    quiet.thinking_delta(1, "secret plan")
    quiet.text_delta(1, "Answer.")
    assert quiet_err.getvalue() == "" and quiet_out.getvalue() == "Answer."
    out, err = io.StringIO(), io.StringIO()
    printer = TerminalPrinter(out, err, show_thinking=True)
    printer.thinking_delta(1, "Look at ")
    printer.thinking_delta(1, "a.py\x1b[2J")
    printer.text_delta(1, "Answer.")
    printer.thinking_delta(2, "Then b.py")
    printer.run_finished(
        RunResult(TerminalReason.COMPLETED, "", Usage(5, 9, thinking_tokens=4), None, 2, "", None)
    )
    assert err.getvalue().splitlines()[:2] == [
        r"thinking: Look at a.py\x1b[2J",
        "thinking: Then b.py",
    ]
    assert "5 in / 9 out tokens (4 thinking)" in err.getvalue()
    assert out.getvalue() == "Answer.\n"
