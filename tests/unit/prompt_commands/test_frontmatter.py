"""The frontmatter subset command files use: what reads, and what is refused by line."""

from __future__ import annotations

import pytest

from agentls.prompt_commands.frontmatter import BrokenFrontmatter, as_list, split_frontmatter


def test_no_frontmatter_is_all_body() -> None:
    assert split_frontmatter("Review $1.\n") == ({}, "Review $1.\n")
    assert split_frontmatter("text\n---\nmore") == ({}, "text\n---\nmore")


def test_the_keys_command_files_use() -> None:
    keys, body = split_frontmatter(
        "---\n"
        "description: Review a file  # shown in lists\n"
        "argument-hint: '[file] [focus]'\n"
        'allowed-tools: Bash(git add:*), Bash(git status:*), "Read"\n'
        "model: claude-sonnet-4-5\n"
        "tools: ['codebase', \"search\"]\n"
        "# a comment line\n"
        "---\n"
        "Body $ARGUMENTS\n"
    )
    assert keys == {
        "description": "Review a file",
        "argument_hint": "[file] [focus]",
        "allowed_tools": 'Bash(git add:*), Bash(git status:*), "Read"',
        "model": "claude-sonnet-4-5",
        "tools": ["codebase", "search"],
    }
    assert body == "Body $ARGUMENTS\n"
    assert as_list(keys["allowed_tools"]) == ["Bash(git add:*)", "Bash(git status:*)", "Read"]


def test_block_lists_and_block_scalars() -> None:
    keys, _ = split_frontmatter(
        "---\nallowed-tools:\n  - Read\n  - Bash(npm run test:*)\n"
        "description: >\n  one\n  line\nnotes: |\n  kept\n  apart\n---\nx"
    )
    assert keys["allowed_tools"] == ["Read", "Bash(npm run test:*)"]
    assert keys["description"] == "one line"
    assert keys["notes"] == "kept\napart"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("---\ndescription: x\nBody\n", "never closed"),
        ("---\ndescription: 'open\n---\n", "line 2: a quoted value that is not closed"),
        ("---\njust words\n---\n", "line 2: not `key: value`"),
        ("---\na: 1\ntools: [a, b\n---\n", "line 3: a list that is not closed"),
        ("---\nmeta: {a: 1}\n---\n", "a mapping"),
        ("---\nlist:\n  - a\n  b\n---\n", "not a `- item` list"),
    ],
)
def test_what_is_not_the_subset_is_broken_and_named(text: str, why: str) -> None:
    with pytest.raises(BrokenFrontmatter) as caught:
        split_frontmatter(text)
    assert why in str(caught.value)
