"""`allowed-tools` as agentls allow rules: never wider than the entry; the rest noted."""

from __future__ import annotations

import pytest

from agentls.permissions.rules import parse_rule
from agentls.prompt_commands.allowed_tools import allow_rules

KNOWN = ("read_file", "list_files", "search", "edit_file", "write_file", "run_command", "rename")


@pytest.mark.parametrize(
    ("entry", "rule"),
    [
        ("Bash(git add:*)", "run_command(git add *)"),
        ("Bash(git status)", "run_command(git status)"),
        ("Bash(npm run test *)", "run_command(npm run test *)"),
        ("Bash", "run_command"),
        ("Read(./src/**)", "read_file(src/**)"),
        ("Edit(docs/*.md)", "edit_file(docs/*.md)"),
        ("Write", "write_file"),
        ("Grep", "search"),
        ("Glob", "list_files"),
        ("mcp__github__get_issue", "mcp__github__get_issue"),
        ("mcp__github", "mcp__github__*"),
        ("run_command(pytest -q)", "run_command(pytest -q)"),
        ("rename", "rename"),
    ],
)
def test_entries_as_rules(entry: str, rule: str) -> None:
    found = allow_rules([entry], KNOWN)
    assert [str(r) for r in found.rules] == [rule] and found.notes == ()
    assert found.rules[0] == parse_rule(rule)  # a rule agentls reads back the same


@pytest.mark.parametrize(
    ("entry", "why"),
    [
        ("WebFetch(domain:example.com)", "no such tool"),
        ("remember", "no such tool"),  # only a person's yes keeps a memory
        ("*", "a glob over tool names"),
        ("mcp__*", "a glob over tool names"),
        ("Read(/etc/passwd)", "only paths inside the workspace"),
        ("Edit(~/.bashrc)", "only paths inside the workspace"),
        ("Write(../other/x)", "only paths inside the workspace"),
        ("Write(src/../../x)", "only paths inside the workspace"),
        ("Bash(git add && rm -rf:*)", "one simple command"),
        ("Bash(echo $HOME)", "one simple command"),
        ("Bash(echo 'open)", "quotes do not close"),
        ("Bash()", "an empty pattern"),
        ("Bash(git", "not `Tool` or `Tool(pattern)`"),
    ],
)
def test_entries_left_out_with_a_note(entry: str, why: str) -> None:
    found = allow_rules([entry], KNOWN)
    assert found.rules == ()
    (note,) = found.notes
    assert why in note and entry in note


def test_a_rule_written_twice_is_one() -> None:
    found = allow_rules(["Bash(ls:*)", "run_command(ls *)", "Read"], KNOWN)
    assert [str(r) for r in found.rules] == ["run_command(ls *)", "read_file"]
