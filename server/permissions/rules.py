"""Permission rules: ``tool`` or ``tool(pattern)``, in allow / ask / deny lists.

For path tools the pattern is a path glob relative to the workspace root
(``**`` crosses folders; see workspace/globs.py, the one glob engine). For
run_command it is matched word by word against each simple command the line
runs (see shell.py), a trailing ``*`` matching any remaining words; each word
of the pattern is a text glob. For external (MCP) tools it is a text glob over
their arguments as compact JSON, or over the one argument the server's
settings name.

A command rule is read two ways. To *allow*, it must name the command exactly:
every word the command may have is known and matched, and a program given by
path (``./rm``) matches only a rule that spells that path. To *deny* or *ask*,
it is enough that the command **could** be what the rule names: ``/bin/rm`` is
``rm``, and words bash computes at run time (``$X``, globs) match anything.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from agentls.permissions.shell import SimpleCommand, analyse
from agentls.workspace.control import PROTECTED_PATHS
from agentls.workspace.globs import any_path_matcher, match_path, match_text
from agentls.workspace.interface import SubjectKind

_RULE = re.compile(r"^\s*([A-Za-z0-9_*.\-]+)\s*(?:\((.*)\))?\s*$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Rule:
    tool: str  # a tool name, or a glob over names (``mcp__github__*``)
    pattern: str | None  # None: every call of the tool
    stop: bool = False  # a deny rule that also ends the run

    def __str__(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"

    def applies_to(self, tool: str) -> bool:
        return _word_matches(self.tool, tool)

    def matches_command(self, tool: str, command: SimpleCommand, *, could: bool = False) -> bool:
        """Does this rule name ``command``? ``could``: might it, given the unknown words."""
        if not self.applies_to(tool):
            return False
        if self.pattern is None:
            return True
        wanted = _pattern_words(self.pattern)
        if wanted is None or not wanted or not command.words:
            return False
        first = wanted[0]
        if _is_literal(first):  # the quick no: another program
            program = command.name if could and "/" not in first else command.words[0]
            if first != program:
                return False
        return (_could_match if could else _names_exactly)(wanted, command)

    def matches(self, tool: str, kind: SubjectKind, subject: str) -> bool:
        if not self.applies_to(tool):
            return False
        if self.pattern is None:
            return True
        if kind == "command":
            return any(self.matches_command(tool, c) for c in analyse(subject).commands)
        if kind == "path":
            return match_path(self.pattern, normalise_path(subject))
        if kind == "text":  # `*` crosses everything here: the subject is not a path
            return match_text(self.pattern, subject)
        return self.pattern == subject


def first_could_match(
    rules: Sequence[Rule], tool: str, commands: Sequence[SimpleCommand]
) -> tuple[Rule, SimpleCommand] | None:
    """The first command (and rule) that one of ``rules`` could name, commands first.

    Each rule's program is read once: a command running another is passed over without
    matching it word by word (a long line runs many commands)."""
    screens: list[tuple[Rule, str | None]] = []
    for rule in rules:
        if not rule.applies_to(tool):
            continue
        program = None
        if rule.pattern is not None:
            wanted = _pattern_words(rule.pattern)
            if not wanted:
                continue  # names no command
            if _is_literal(wanted[0]) and "/" not in wanted[0]:
                program = wanted[0]
        screens.append((rule, program))
    if not screens:
        return None
    for command in commands:
        name = command.name
        for rule, program in screens:
            if program is not None and program != name:
                continue
            if rule.matches_command(tool, command, could=True):
                return rule, command
    return None


def normalise_path(path: str) -> str:
    """A workspace-relative path as rules see it: no ./, no a/../, no trailing /."""
    cleaned = os.path.normpath(path.replace("\\", "/")) if path else path
    return "" if cleaned == "." else cleaned


def _strip_unescaped(pattern: str) -> str:
    """Strip surrounding whitespace, but not a space escaped with a backslash."""
    stripped = pattern.strip()
    body = pattern.lstrip()
    backslashes = len(stripped) - len(stripped.rstrip("\\"))
    if backslashes % 2 and len(body) > len(stripped):
        return stripped + body[len(stripped)]
    return stripped


@lru_cache(maxsize=1024)
def _pattern_words(pattern: str) -> tuple[str, ...] | None:
    try:
        return tuple(shlex.split(pattern))
    except ValueError:
        return None


def _names_exactly(wanted: tuple[str, ...], command: SimpleCommand) -> bool:
    words = command.words
    if wanted[-1] == "*":
        prefix = wanted[:-1]
        if command.known is not None and command.known < len(prefix):
            return False
        return len(words) >= len(prefix) and _words_match(prefix, words[: len(prefix)])
    return command.known is None and len(words) == len(wanted) and _words_match(wanted, words)


def _could_match(wanted: tuple[str, ...], command: SimpleCommand) -> bool:
    words = list(command.words)
    if "/" not in wanted[0]:
        words[0] = command.name  # /bin/rm is rm to a rule that says rm
    known = len(words) if command.known is None else command.known
    star = wanted[-1] == "*"
    fixed = wanted[:-1] if star else wanted
    if command.known is None:
        if len(words) < len(fixed) or (not star and len(words) != len(fixed)):
            return False
    elif not star and known > len(fixed):
        return False
    count = min(len(fixed), known)
    return _words_match(fixed[:count], tuple(words[:count]))


def _words_match(patterns: tuple[str, ...], words: tuple[str, ...]) -> bool:
    return all(_word_matches(p, w) for p, w in zip(patterns, words, strict=True))


def _word_matches(pattern: str, word: str) -> bool:
    if _is_literal(pattern):
        return pattern == word  # no glob syntax: the pattern is the word itself
    return match_text(pattern, word)


@lru_cache(maxsize=1024)
def _is_literal(pattern: str) -> bool:
    return not any(c in pattern for c in "*?[\\")


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
        pattern = _strip_unescaped(pattern)
        if not pattern:
            raise ValueError(f"permission rule {raw!r} has an empty pattern")
    return Rule(match.group(1), pattern, stop)


@dataclass
class RuleSet:
    allow: list[Rule] = field(default_factory=list)
    ask: list[Rule] = field(default_factory=list)
    deny: list[Rule] = field(default_factory=list)
    # Path globs added to PROTECTED_PATHS (permissions.protectedPaths).
    protected: list[str] = field(default_factory=list)

    @classmethod
    def from_settings(cls, data: Any) -> RuleSet:
        if data is None:
            return cls()
        if not isinstance(data, dict):
            raise ValueError("permissions must be an object with allow, ask and deny lists")
        unknown = set(data) - {"allow", "ask", "deny", "protectedPaths"}
        if unknown:
            raise ValueError(f"permissions has unknown keys: {', '.join(sorted(unknown))}")
        lists: dict[str, list[Rule]] = {}
        for key in ("allow", "ask", "deny"):
            raw = data.get(key, [])
            if not isinstance(raw, list):
                raise ValueError(f"permissions.{key} must be a list of rules")
            lists[key] = [parse_rule(r) for r in raw]
        protected = data.get("protectedPaths", [])
        if not isinstance(protected, list) or not all(
            isinstance(p, str) and p.strip() for p in protected
        ):
            raise ValueError("permissions.protectedPaths must be a list of path globs")
        return cls(lists["allow"], lists["ask"], lists["deny"], list(protected))

    def merged(self, other: RuleSet) -> RuleSet:
        return RuleSet(
            self.allow + other.allow,
            self.ask + other.ask,
            self.deny + other.deny,
            self.protected + other.protected,
        )

    def is_protected(self, path: str) -> bool:
        """A control file: writing it always needs a person."""
        # Keyed by the list's content, so a changed list is a new matcher.
        return _protected_matcher(tuple(self.protected))(normalise_path(path))


@lru_cache(maxsize=16)
def _protected_matcher(extra: tuple[str, ...]) -> Callable[[str], bool]:
    """One combined regex for all the globs (wcmatch's matcher per glob costs ~1 us)."""
    return any_path_matcher((*PROTECTED_PATHS, *extra))
