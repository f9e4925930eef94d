"""What a compaction must never lose, read from the history itself.

The person's requests, the files edited, the calls the person refused or that
never ran, the model's latest checklist (`update_plan`) and the plan agreed in plan
mode: gathered as messages arrive (O(1) each), rendered next to the summary. They
come from the record, not from the summariser, so a weak summary cannot drop them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

import orjson

from agentls.contracts.messages import Message, ToolResultBlock, ToolUseBlock
from agentls.contracts.plans import PLAN_TOOL, Plan
from agentls.contracts.tooling import ErrorCode

DEFAULT_WRITE_TOOLS = frozenset({"edit_file", "write_file"})
_REQUEST_CHARS = 2000
_PLAN_CHARS = 4000
_MAX_FILES = 40
_MAX_REFUSED = 10
_LINE_CHARS = 200
_REFUSED_PREFIXES = tuple(
    f"Error ({code.value})" for code in (ErrorCode.PERMISSION_DENIED, ErrorCode.CANCELLED)
)


class PinnedFacts:
    def __init__(self, write_tools: frozenset[str] = DEFAULT_WRITE_TOOLS) -> None:
        self.write_tools = write_tools
        self.first_request: str | None = None
        self.latest_request: tuple[int, str] | None = None
        self.edited: dict[str, str] = {}  # path -> tool, most recent last
        self.refused: deque[tuple[int, str]] = deque(maxlen=_MAX_REFUSED)
        self.checklist: tuple[int, Plan] | None = None  # the latest update_plan that ran
        self._edits_in_flight: dict[str, tuple[str, str]] = {}
        self._plans_in_flight: dict[str, Plan] = {}

    def add(self, index: int, message: Message, uses: Mapping[str, ToolUseBlock]) -> None:
        if message.role == "assistant":
            for block in message.content:
                if not isinstance(block, ToolUseBlock):
                    continue
                if block.name in self.write_tools:
                    path = block.input.get("path")
                    if isinstance(path, str):
                        self._edits_in_flight[block.id] = (path, block.name)
                elif block.name == PLAN_TOOL:
                    plan = Plan.from_input(block.input)
                    if plan is not None:
                        self._plans_in_flight[block.id] = plan
            return
        has_results = False
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                has_results = True
                if (
                    block.is_error
                    or block.tool_use_id in self._edits_in_flight
                    or block.tool_use_id in self._plans_in_flight
                ):
                    self._result(index, block, uses.get(block.tool_use_id))
        if has_results:
            return
        text = message.text.strip()
        if text:
            if self.first_request is None:
                self.first_request = text
            self.latest_request = (index, text)

    def _result(self, index: int, block: ToolResultBlock, use: ToolUseBlock | None) -> None:
        plan = self._plans_in_flight.pop(block.tool_use_id, None)
        if plan is not None and not block.is_error:  # the latest replaces the one before
            self.checklist = (index, plan)
        edit = self._edits_in_flight.pop(block.tool_use_id, None)
        if edit is not None and not block.is_error:
            self.edited.pop(edit[0], None)  # re-inserted last: most recent edits last
            self.edited[edit[0]] = edit[1]
            if len(self.edited) > _MAX_FILES:
                del self.edited[next(iter(self.edited))]
        if block.is_error and block.content.startswith(_REFUSED_PREFIXES):
            call = "a call" if use is None else f"{use.name} {orjson.dumps(use.input).decode()}"
            outcome = block.content.splitlines()[0] if block.content else ""
            self.refused.append((index, _cut(f"{call} — {outcome}", _LINE_CHARS)))

    def render(self, cut: int, plan: str | None) -> str:
        """The pinned block for a summary of messages before ``cut``."""
        lines: list[str] = []
        if self.first_request is not None:
            lines.append(
                f"- The person's first request: {_cut(self.first_request, _REQUEST_CHARS)}"
            )
        latest = self.latest_request
        if latest is not None and latest[0] < cut and latest[1] != self.first_request:
            lines.append(f"- The person's latest request: {_cut(latest[1], _REQUEST_CHARS)}")
        if self.edited:
            files = ", ".join(f"{path} ({tool})" for path, tool in self.edited.items())
            lines.append(f"- Files edited in this session: {files}")
        refused = [text for index, text in self.refused if index < cut]
        if refused:
            lines.append(
                "- Calls refused by the person or never run (do not retry them in another "
                "form without asking): " + "; ".join(refused)
            )
        checklist = self.checklist
        if checklist is not None and checklist[0] < cut:
            steps = "\n".join(f"  {_cut(line, _LINE_CHARS)}" for line in checklist[1].checklist())
            why = checklist[1].explanation
            lines.append(
                "- The task's checklist (update_plan; a later call replaces it):\n"
                + steps
                + (f"\n  ({_cut(why, _LINE_CHARS)})" if why else "")
            )
        if plan:
            lines.append(f"- The plan agreed in plan mode:\n{_cut(plan.strip(), _PLAN_CHARS)}")
        return "\n".join(lines)


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
