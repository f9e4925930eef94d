"""Printing a run as it happens: the answer on stdout, tool activity on stderr.

All of it came from the model or the workspace, so control characters are
shown as escapes (`visible.py`); the answer keeps its newlines and tabs, a row
stays one line.
"""

from __future__ import annotations

import sys

from agentls.cli.output import Writable
from agentls.cli.visible import one_line, visible
from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.contracts.observer import HookNotice, NullObserver
from agentls.contracts.outcomes import RunResult, TerminalReason
from agentls.contracts.tooling import Observation, ToolIntent


class TerminalPrinter(NullObserver):
    def __init__(
        self, out: Writable | None = None, err: Writable | None = None, *, show_cost: bool = True
    ) -> None:
        self.out = sys.stdout if out is None else out
        self.err = sys.stderr if err is None else err
        self.show_cost = show_cost  # False for a scripted model: its price is nominal
        self._at_line_start = True

    def text_delta(self, turn: int, text: str) -> None:
        self.out.write(visible(text))
        self.out.flush()
        if text:
            self._at_line_start = text.endswith("\n")

    def _end_line(self) -> None:
        if not self._at_line_start:
            self.out.write("\n")
            self.out.flush()
            self._at_line_start = True

    def tool_started(self, turn: int, intent: ToolIntent, summary: str) -> None:
        self._end_line()
        self.err.write(f"\u2192 {one_line(summary)}\n")
        self.err.flush()

    def tool_finished(self, turn: int, observation: Observation, summary: str) -> None:
        if observation.ok:
            exit_code = observation.meta.get("exitCode")
            failed = exit_code not in (None, 0)  # ran, but said it failed: ✗, as in the editors
            note = f" (exit code {exit_code})" if failed else ""
            mark = "\u2717" if failed else "\u2713"
            self.err.write(f"  {mark} {one_line(summary)}{note}\n")
        else:
            first = observation.content.splitlines()[0] if observation.content else ""
            self.err.write(f"  \u2717 {one_line(summary)}: {one_line(first[:200])}\n")
        self.err.flush()

    def approval_answered(
        self, turn: int, request: ApprovalRequest, answer: ApprovalAnswer
    ) -> None:
        if answer.remembers and request.suggested_rule:  # a call no rule covers adds none
            self.err.write(f"  rule added: {one_line(request.suggested_rule)}\n")

    def hook_notice(self, turn: int, notice: HookNotice) -> None:
        self._end_line()
        print_hook_notice(self.err, notice)

    def run_finished(self, result: RunResult) -> None:
        self._end_line()
        self.err.write(summary_line(result, show_cost=self.show_cost) + "\n")
        self.err.flush()


class HookNoticePrinter(NullObserver):
    """With --json, stdout is the result's alone: only what hooks tell goes to stderr."""

    def __init__(self, err: Writable | None = None) -> None:
        self.err = sys.stderr if err is None else err

    def hook_notice(self, turn: int, notice: HookNotice) -> None:
        print_hook_notice(self.err, notice)


def print_hook_notice(err: Writable, notice: HookNotice) -> None:
    mark = "!" if notice.error else "i"
    said = f"{notice.event} hook `{notice.command}`: {notice.text}"
    err.write(f"  {mark} {one_line(said)}\n")
    err.flush()


def summary_line(result: RunResult, *, show_cost: bool = True) -> str:
    usage = result.usage
    cost = "cost unknown" if result.cost_usd is None else f"${result.cost_usd:.4f}"
    parts = [
        result.reason.value,
        f"{result.turns} turn{'s' if result.turns != 1 else ''}",
        f"{usage.input_tokens:,} in / {usage.output_tokens:,} out tokens",
    ]
    if show_cost:
        parts.append(cost)
    line = "[" + " \u00b7 ".join(parts) + "]"
    if result.detail and result.reason is not TerminalReason.COMPLETED:
        line += f" {visible(result.detail)}"
    return line
