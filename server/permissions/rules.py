"""Permission rules: ``tool`` or ``tool(pattern)``, in allow / ask / deny lists.

For path tools the pattern is a glob relative to the workspace root (``**``
crosses folders). For run_command it is matched word by word against the
command, a trailing ``*`` matching any remaining words. A command holding
shell control syntax (``;``, ``&&``, ``|``, ``$(``, backticks, redirections,
newlines) never matches an allow rule: it always needs a person.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from agentls.workspace.interface import SubjectKind

_RULE = re.compile(r"^\s*([A-Za-z0-9_*.\-]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)
_SHELL_CONTROL = re.compile(r"[;&|<>`\n]|\$\(|\$\{")


@dataclass(frozen=True, slots=True)
class Rule:
    tool: str  # a tool name, or a glob over names (``mcp__github__*``)
    pattern: str | None  # None: every call of the tool
    stop: bool = False  # a deny rule that also ends the run

    def __str__(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"

    def matches(self, tool: str, kind: SubjectKind, subject: str) -> bool:
        if not fnmatch.fnmatchcase(tool, self.tool):
            return False
        if self.pattern is None:
            return True
        if kind == "command":
            return command_matches(self.pattern, subject)
        if kind == "path":
            return glob_regex(self.pattern).fullmatch(subject) is not None
        return self.pattern == subject


def parse_rule(raw: Any) -> Rule:
    """A rule from settings: a string, or ``{"rule": "...", "stop": true}``."""
    stop = False
    if isinstance(raw, dict):
        stop = bool(raw.get("stop", False))
        raw = raw.get("rule")
    if not isinstance(raw, str):
        raise ValueError(
            f"a permission rule must be a string like 'run_command(git status)', got {raw!r}"
        )
    match = _RULE.match(raw)
    if match is None:
        raise ValueError(f"cannot read permission rule {raw!r}: write tool or tool(pattern)")
    pattern = match.group(2)
    if pattern is not None:
        pattern = pattern.strip()
        if not pattern:
            raise ValueError(f"permission rule {raw!r} has an empty pattern")
    return Rule(match.group(1), pattern, stop)


@cache
def glob_regex(pattern: str) -> re.Pattern[str]:
    pattern = pattern.lstrip("./") if pattern.startswith("./") else pattern
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out), re.DOTALL)


def has_shell_control(command: str) -> bool:
    return _SHELL_CONTROL.search(command) is not None


def command_matches(pattern: str, command: str) -> bool:
    try:
        words = shlex.split(command)
        wanted = shlex.split(pattern)
    except ValueError:
        return False
    if wanted and wanted[-1] == "*":
        prefix = wanted[:-1]
        return words[: len(prefix)] == prefix
    return words == wanted


@dataclass
class RuleSet:
    allow: list[Rule] = field(default_factory=list)
    ask: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)

    @classmethod
    def from_settings(cls, data: Any) -> RuleSet:
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise ValueError("permissions must be an object with allow, ask and deny lists")
        unknown = set(data) - {"allow", "ask", "deny"}
        if unknown:
            raise ValueError(f"permissions has unknown keys: {', '.join(sorted(unknown))}")
        lists: dict[str, list[Rule]] = {}
        for key in ("allow", "ask", "deny"):
            raw = data.get(key, [])
            if not isinstance(raw, list):
                raise ValueError(f"permissions.{key} must be a list of rules")
            lists[key] = [parse_rule(r) for r in raw]
        return cls(lists["allow"], lists["ask"], lists["deny"])

    def merged(self, other: RuleSet) -> RuleSet:
        return RuleSet(self.allow + other.allow, self.ask + other.ask, self.deny + other.deny)
