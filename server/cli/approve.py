"""Asking a person at the terminal: y once, a always for this session, n deny.

A call no rule can cover (an unresolved line, a control file) has no "always":
the prompt offers y and n, and a or w, if typed, allow it once. What the
prompt shows came from the model or the workspace, so its control characters
are shown as escapes (`visible.py`): a command cannot draw another over itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from typing import TextIO

from agentls.cli.output import Writable
from agentls.cli.visible import one_line, visible
from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest

_ANSWERS = {
    "y": ApprovalAnswer.ALLOW_ONCE,
    "yes": ApprovalAnswer.ALLOW_ONCE,
    "a": ApprovalAnswer.ALLOW_ALWAYS,
    "always": ApprovalAnswer.ALLOW_ALWAYS,
    "w": ApprovalAnswer.ALLOW_ALWAYS_WORKSPACE,
    "n": ApprovalAnswer.DENY,
    "no": ApprovalAnswer.DENY,
}
_WITH_RULE = (
    "  Allow? [y] once  [a] always, this session  "
    "[w] always, saved in .agentls/settings.json  [n] deny: "
)
_WITHOUT_RULE = "  Allow? [y] once  [n] deny: "


class TerminalApprover:
    person = True  # the person at the terminal reads the call and answers
    reason = ""  # a person's no needs no reason

    def __init__(self, stdin: TextIO | None = None, out: Writable | None = None) -> None:
        self.stdin = sys.stdin if stdin is None else stdin
        self.out = sys.stderr if out is None else out
        self._lines = _LineReader(self.stdin)

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        try:
            return await self._ask(request)
        except asyncio.CancelledError:  # the run ended: what follows starts on a new line
            self.out.write("\n")
            self.out.flush()
            raise

    async def _ask(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.out.write(
            f"\n\u26a0 agentls wants to {one_line(request.tool)}: {one_line(request.summary)}\n"
        )
        if request.detail and request.detail != request.summary:
            self.out.write(_indent(visible(request.detail)) + "\n")
        if request.reason:
            self.out.write(f"  Why: {one_line(request.reason)}\n")
        if request.suggested_rule:
            self.out.write(f"  Always would add: {one_line(request.suggested_rule)}\n")
        else:
            self.out.write("  No rule can cover this call, so it can only be allowed once.\n")
        question = _WITH_RULE if request.suggested_rule else _WITHOUT_RULE
        while True:
            self.out.write(question)
            self.out.flush()
            line = await self._lines.read()
            if not line:  # end of input: nobody is there to say yes
                self.out.write("\n")
                return ApprovalAnswer.DENY
            answer = _ANSWERS.get(line.strip().lower())
            if answer is not None and answer.remembers and not request.suggested_rule:
                return ApprovalAnswer.ALLOW_ONCE  # no rule to keep: "always" is this once
            if answer is not None:
                return answer
            self.out.write("  please answer y, a, w or n\n" if request.suggested_rule else
                           "  please answer y or n\n")  # fmt: skip


class _LineReader:
    """Lines from stdin, read on the event loop when it is a terminal or a pipe.

    A read on a worker thread outlives a cancelled run: leaving, asyncio waits
    for its thread, so a SIGTERM during a question would end the process only
    once the person pressed Enter.
    """

    def __init__(self, stdin: TextIO) -> None:
        self.stdin = stdin
        self._buffer = b""

    async def read(self) -> str:
        fd = _fileno(self.stdin)
        if fd is None:
            return await asyncio.to_thread(self.stdin.readline)
        loop = asyncio.get_running_loop()
        while b"\n" not in self._buffer:
            readable: asyncio.Future[None] = loop.create_future()
            try:
                loop.add_reader(fd, _settle, readable)
            except (OSError, ValueError):  # a regular file: cannot be waited on, never blocks
                return await asyncio.to_thread(self.stdin.readline)
            try:
                await readable
            finally:
                loop.remove_reader(fd)
            chunk = os.read(fd, 4096)
            if not chunk:  # end of input
                line, self._buffer = self._buffer, b""
                return line.decode(errors="replace")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode(errors="replace") + "\n"


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():  # the reader may fire again before the waiting task runs
        future.set_result(None)


def _fileno(stream: TextIO) -> int | None:
    with contextlib.suppress(AttributeError, OSError, ValueError):
        return stream.fileno()
    return None


def _indent(text: str, limit: int = 60) -> str:
    lines = text.splitlines()
    shown = lines[:limit]
    more = f"\n    ... {len(lines) - limit} more lines" if len(lines) > limit else ""
    return "\n".join("    " + line for line in shown) + more
