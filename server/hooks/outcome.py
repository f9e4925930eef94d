"""What one hook run means, by Claude Code's rules.

Exit 0: stdout may be JSON (``continue``/``stopReason``, ``systemMessage``,
``decision``/``reason``, ``hookSpecificOutput`` with ``permissionDecision``,
``permissionDecisionReason``, ``additionalContext``); for `UserPromptSubmit` and
`SessionStart` plain text is context. Exit 2: a block, its stderr the reason. Any
other exit, a timeout or a start that failed: an error the person is shown, which
blocks nothing by itself (a `PreToolUse` hook that fails makes its call ask).

The same text gives the same answer: a live run and its replay read what the log
keeps (bounded, masked).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

Permission = Literal["allow", "deny", "ask"]
_PLAIN_CONTEXT = frozenset({"UserPromptSubmit", "SessionStart"})
_DECISIONS = {"allow": "allow", "deny": "deny", "ask": "ask", "approve": "allow", "block": "deny"}


@dataclass(frozen=True, slots=True)
class HookResult:
    """How one hook command ended, as the log keeps it."""

    exit_code: int | None
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False
    failure: str | None = None  # it did not start, or did not finish (why)
    duration_ms: int = 0


@dataclass(frozen=True, slots=True)
class HookAnswer:
    """What agentls takes from one hook run."""

    permission: Permission | None = None  # PreToolUse
    reason: str = ""  # the permission's, or the block's
    block: bool = False  # exit 2 or decision "block"
    context: str = ""  # for the model
    stop: str | None = None  # continue: false, with its stopReason
    message: str | None = None  # systemMessage, for the person
    error: str | None = None  # the hook failed: for the person

    @property
    def outcome(self) -> str:
        """A word for the log."""
        if self.error is not None:
            return "error"
        if self.stop is not None:
            return "stop"
        if self.permission is not None:
            return self.permission
        if self.block:
            return "block"
        return "context" if self.context else ""


def interpret(event: str, result: HookResult, timeout: float | None = None) -> HookAnswer:
    if result.failure is not None:
        return _failed(event, result.failure)
    if result.timed_out or result.exit_code is None:
        limit = f" after {timeout:g} s" if timeout is not None else ""
        return _failed(event, f"timed out{limit}" if result.timed_out else "was killed")
    if result.exit_code == 2:
        reason = result.stderr.strip() or "(the hook gave no reason)"
        if event == "PreToolUse":
            return HookAnswer(permission="deny", reason=reason, block=True)
        return HookAnswer(reason=reason, block=True)
    if result.exit_code != 0:
        said = _first_lines(result.stderr or result.stdout)
        return _failed(event, f"exited with {result.exit_code}" + (f": {said}" if said else ""))
    return _from_stdout(event, result.stdout)


def _failed(event: str, why: str) -> HookAnswer:
    if event == "PreToolUse":  # its check did not happen: the call goes to the person
        return HookAnswer(permission="ask", reason=f"the hook {why}", error=why)
    return HookAnswer(error=why)


def _from_stdout(event: str, stdout: str) -> HookAnswer:
    text = stdout.strip()
    data: Any = None
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            data = None
    if not isinstance(data, dict):
        plain = text if event in _PLAIN_CONTEXT else ""
        return HookAnswer(context=plain)
    try:
        return _from_json(event, data)
    except ValueError as exc:
        return _failed(event, f"answered {exc}")


def _from_json(event: str, data: dict[str, Any]) -> HookAnswer:
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    stop = None
    if data.get("continue") is False:
        stop = _text(data.get("stopReason")) or "a hook stopped the run"
    message = _text(data.get("systemMessage")) or None
    context = _text(specific.get("additionalContext"))
    permission: Permission | None = None
    reason = _text(data.get("reason"))
    block = False
    decision = data.get("decision")
    if event == "PreToolUse":
        said = specific.get("permissionDecision", decision)
        if said is not None:
            if said not in _DECISIONS:
                raise ValueError(f"permissionDecision {said!r} (allow, deny or ask)")
            permission = _DECISIONS[said]  # type: ignore[assignment]
            reason = _text(specific.get("permissionDecisionReason")) or reason
        if "updatedInput" in specific and permission != "deny":
            permission = "ask"  # a call is run as the gate judged it, never changed by a hook
            reason = "the hook asked to change the call's input, which agentls does not do"
    elif decision is not None:
        if decision != "block":
            raise ValueError(f'decision {decision!r} (only "block")')
        block = True
        reason = reason or "(the hook gave no reason)"
    return HookAnswer(permission, reason, block, context, stop, message)


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _first_lines(text: str, lines: int = 3, chars: int = 400) -> str:
    kept = "\n".join(text.strip().splitlines()[:lines])
    return kept[:chars]
