"""Asking a person at the terminal: y once, a always for this session, n deny."""

from __future__ import annotations

import asyncio
import sys
from typing import TextIO

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


class TerminalApprover:
    person = True  # the person at the terminal reads the call and answers

    def __init__(self, stdin: TextIO = sys.stdin, out: TextIO = sys.stderr) -> None:
        self.stdin = stdin
        self.out = out

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.out.write(f"\n\u26a0 agentls wants to {request.tool}: {request.summary}\n")
        if request.detail and request.detail != request.summary:
            self.out.write(_indent(request.detail) + "\n")
        if request.reason:
            self.out.write(f"  Why: {request.reason}\n")
        always = (
            f"  Always would add: {request.suggested_rule}\n"
            if request.suggested_rule
            else "  No rule can cover this call: [a] and [w] allow it once.\n"
        )
        while True:
            self.out.write(
                always + "  Allow? [y] once  [a] always, this session  "
                "[w] always, saved in .agentls/settings.json  [n] deny: "
            )
            self.out.flush()
            line = await asyncio.to_thread(self.stdin.readline)
            if not line:  # end of input: nobody is there to say yes
                self.out.write("\n")
                return ApprovalAnswer.DENY
            answer = _ANSWERS.get(line.strip().lower())
            if answer is not None:
                return answer
            self.out.write("  please answer y, a, w or n\n")


def _indent(text: str, limit: int = 60) -> str:
    lines = text.splitlines()
    shown = lines[:limit]
    more = f"\n    ... {len(lines) - limit} more lines" if len(lines) > limit else ""
    return "\n".join("    " + line for line in shown) + more
