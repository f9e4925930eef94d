"""Rules and modes: deny beats ask beats allow; secrets need explicit permission."""

from __future__ import annotations

import pytest

from agentls.contracts.decisions import Verdict
from agentls.contracts.tooling import Risk
from agentls.permissions.modes import Mode, parse_mode
from agentls.permissions.policy import PermissionPolicy
from agentls.permissions.rules import Rule, RuleSet, parse_rule


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("src/**", "src/a/b.py", True),
        ("src/**", "lib/a.py", False),
        ("**/.env", ".env", True),
        ("**/.env", "a/b/.env", True),
        ("*.py", "a/b.py", False),
        ("**/*.py", "a/b.py", True),
        ("src/*.py", "src/x.py", True),
        ("src/*.py", "src/sub/x.py", False),
        # a leading ./ is the prefix, not a set of characters to strip
        ("./.github/workflows/*", ".github/workflows/ci.yml", True),
        ("./.github/workflows/*", "./.github/workflows/ci.yml", True),
        (".github/workflows/*", "a/../.github/workflows/ci.yml", True),
        ("./.env", "env", False),
        # a literal * in a path is written escaped
        ("src/\\*.py", "src/*.py", True),
        ("src/\\*.py", "src/a.py", False),
    ],
)
def test_path_rules(pattern: str, path: str, matches: bool) -> None:
    assert Rule("write_file", pattern).matches("write_file", "path", path) is matches


def test_bad_rules_say_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="cannot read permission rule"):
        parse_rule("run_command(")
    with pytest.raises(ValueError, match="unknown keys: alow"):
        RuleSet.from_settings({"alow": []})
    with pytest.raises(ValueError, match="unknown mode 'yolo'"):
        parse_mode("yolo")


def policy(mode: Mode = Mode.DEFAULT, **rules: list[str]) -> PermissionPolicy:
    return PermissionPolicy(RuleSet.from_settings(rules), mode)


def test_defaults_by_mode() -> None:
    assert policy().evaluate("read_file", Risk.READ, "path", "a.py").verdict is Verdict.ALLOW
    assert policy().evaluate("edit_file", Risk.WRITE, "path", "a.py").verdict is Verdict.ASK
    accept = policy(Mode.ACCEPT_EDITS)
    assert accept.evaluate("edit_file", Risk.WRITE, "path", "a.py").verdict is Verdict.ALLOW
    assert accept.evaluate("run_command", Risk.EXECUTE, "command", "ls").verdict is Verdict.ASK
    bypass = policy(Mode.BYPASS, deny=["run_command(rm *)"])
    assert bypass.evaluate("run_command", Risk.EXECUTE, "command", "ls").verdict is Verdict.ALLOW
    rm = bypass.evaluate("run_command", Risk.EXECUTE, "command", "rm -rf /")
    assert rm.verdict is Verdict.DENY


def test_compound_commands_never_match_an_allow_rule() -> None:
    p = policy(allow=["run_command(git status *)"])
    assert p.evaluate("run_command", Risk.EXECUTE, "command", "git status").verdict is Verdict.ALLOW
    sneaky = p.evaluate("run_command", Risk.EXECUTE, "command", "git status && rm -rf x")
    assert sneaky.verdict is Verdict.ASK


def test_secrets_need_explicit_permission() -> None:
    p = policy(allow=["read_file"])
    assert p.evaluate("read_file", Risk.READ, "path", ".env").verdict is Verdict.ASK
    assert p.evaluate("read_file", Risk.READ, "path", "src/a.py").verdict is Verdict.ALLOW
    explicit = policy(allow=["read_file(.env)"])
    assert explicit.evaluate("read_file", Risk.READ, "path", ".env").verdict is Verdict.ALLOW
    bypass = policy(Mode.BYPASS)
    assert bypass.evaluate("read_file", Risk.READ, "path", "deploy/id_rsa").verdict is Verdict.ASK


@pytest.mark.parametrize("mode", list(Mode))
def test_a_memory_is_asked_whatever_the_rules_and_the_mode_say(mode: Mode) -> None:
    # Only a yes to the proposal keeps a memory: no allow rule, session rule, ask rule
    # (which bypass mode would answer) or mode does; a person's deny rule still denies.
    ruled = policy(mode, allow=["remember", "remember(*)"], ask=["remember"])
    ruled.remember([Rule("remember", None)])
    decision = ruled.evaluate("remember", Risk.MEMORY, "text", "Tests run with pnpm.")
    assert decision.verdict is Verdict.ASK, decision
    assert decision.source == "a memory is kept only with a yes"
    assert ruled.suggested_rules("remember", "text", "Tests run with pnpm.", Risk.MEMORY) == []
    denied = policy(mode, deny=["remember"], allow=["remember"])
    assert denied.evaluate("remember", Risk.MEMORY, "text", "x").verdict is Verdict.DENY
