"""Risk `external`: asked by default, hidden in plan mode unless read-only, rules by name glob."""

from __future__ import annotations

import pytest

from agentls.contracts.decisions import Verdict
from agentls.contracts.tooling import Risk
from agentls.permissions.modes import Mode, is_visible
from agentls.permissions.policy import PermissionPolicy
from agentls.permissions.rules import RuleSet

ARGS = '{"owner":"me","repo":"agentls","title":"bug"}'


def decide(mode: Mode, rules: dict[str, list[str]] | None = None, subject: str = ARGS) -> Verdict:
    policy = PermissionPolicy(RuleSet.from_settings(rules or {}), mode)
    return policy.evaluate("mcp__github__create_issue", Risk.EXTERNAL, "text", subject).verdict


@pytest.mark.parametrize(
    ("mode", "verdict"),
    [(Mode.DEFAULT, Verdict.ASK), (Mode.ACCEPT_EDITS, Verdict.ASK), (Mode.PLAN, Verdict.ASK),
     (Mode.BYPASS, Verdict.ALLOW)],
)  # fmt: skip
def test_external_by_mode(mode: Mode, verdict: Verdict) -> None:
    assert decide(mode) is verdict


def test_plan_mode_shows_only_read_only_external_tools() -> None:
    assert not is_visible(Risk.EXTERNAL, Mode.PLAN)
    assert is_visible(Risk.EXTERNAL, Mode.PLAN, read_only_hint=True)
    assert not is_visible(Risk.EXECUTE, Mode.PLAN, read_only_hint=True)  # only external tools
    assert is_visible(Risk.EXTERNAL, Mode.DEFAULT)


def test_rules_match_names_by_glob_and_arguments_by_pattern() -> None:
    assert decide(Mode.DEFAULT, {"allow": ["mcp__github__*"]}) is Verdict.ALLOW
    assert decide(Mode.DEFAULT, {"allow": ["mcp__gitlab__*"]}) is Verdict.ASK
    assert decide(Mode.DEFAULT, {"allow": ['mcp__github__create_issue(*"repo":"agentls"*)']}) \
        is Verdict.ALLOW  # fmt: skip
    assert decide(Mode.DEFAULT, {"allow": ['mcp__github__*(*"repo":"other"*)']}) is Verdict.ASK
    # a chosen subject (the server's subjectArgument) is matched the same way
    assert decide(Mode.DEFAULT, {"allow": ["mcp__github__*(me/*)"]}, "me/agentls") is Verdict.ALLOW


def test_deny_rules_hold_in_every_mode_and_beat_allow() -> None:
    rules = {"allow": ["mcp__*"], "deny": ["mcp__github__*"]}
    for mode in Mode:
        assert decide(mode, rules) is Verdict.DENY
    assert decide(Mode.BYPASS, {"ask": ["mcp__github__*"]}) is Verdict.ALLOW  # bypass: no prompts


def test_always_allow_suggests_the_whole_tool() -> None:
    policy = PermissionPolicy(RuleSet(), Mode.DEFAULT)
    (rule,) = policy.suggested_rules("mcp__github__create_issue", "text", ARGS)
    assert str(rule) == "mcp__github__create_issue"
