"""Permission rules: ``tool`` or ``tool(pattern)``, in allow / ask / deny lists.

For path tools the pattern is a glob relative to the workspace root (``**``
crosses folders). For run_command it is matched word by word against each
simple command the line runs (see shell.py), a trailing ``*`` matching any
remaining words; each word of the pattern may itself be a glob. For external
(MCP) tools it is a glob over their arguments as compact JSON, or over the one
argument the server's settings name.
"""

from __future__ import annotations

import fnmatch
import re
import shlex
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from agentls.permissions.shell import SimpleCommand, analyse
from agentls.workspace.interface import SubjectKind

_RULE = re.compile(r"^\s*([A-Za-z0-9_*.\-]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Rule:
    tool: str  # a tool name, or a glob over names (``mcp__github__*``)
    pattern: str | None  # None: every call of the tool
    stop: bool = False  # a deny rule that also ends the run

    def __str__(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"

    def matches_command(self, tool: str, command: SimpleCommand) -> bool:
        """Word by word against one simple command; a trailing ``*`` takes the rest."""
        if not fnmatch.fnmatchcase(tool, self.tool):
            return False
        if self.pattern is None:
            return True
        try:
            wanted = shlex.split(self.pattern)
        except ValueError:
            return False
        words = list(command.words)
        if wanted and words and "/" not in wanted[0]:
            words[0] = command.name  # /bin/rm is rm to a rule that says rm
        if wanted and wanted[-1] == "*":
            prefix = wanted[:-1]
            return len(words) >= len(prefix) and _words_match(prefix, words[: len(prefix)])
        return len(words) == len(wanted) and _words_match(wanted, words)

    def matches(self, tool: str, kind: SubjectKind, subject: str) -> bool:
        if not fnmatch.fnmatchcase(tool, self.tool):
            return False
        if self.pattern is None:
            return True
        if kind == "command":
            return any(self.matches_command(tool, c) for c in analyse(subject).commands)
        if kind == "path":
            return glob_regex(self.pattern).fullmatch(subject) is not None
        if kind == "text":  # `*` crosses everything here: the subject is not a path
            return fnmatch.fnmatchcase(subject, self.pattern)
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


def _words_match(patterns: list[str], words: list[str]) -> bool:
    return all(fnmatch.fnmatchcase(w, p) for p, w in zip(patterns, words, strict=True))


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
