"""The one glob engine: path globs, text globs, and escaping that round-trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentls.workspace.globs import (
    any_path_matcher,
    escape_path,
    escape_text,
    match_path,
    match_text,
)


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.py", "a.py", True),
        ("*.py", "d/a.py", False),
        ("**/*.py", "a.py", True),
        ("**/*.py", "d/e/a.py", True),
        ("src/**", "src/a/b.txt", True),
        ("src/**", "other/a", False),
        ("a?c", "abc", True),
        ("a?c", "a/c", False),
        ("[ab].txt", "b.txt", True),
        ("[!ab].txt", "b.txt", False),
        ("*.{py,md}", "x.md", True),
        ("*.{py,md}", "x.rs", False),
        ("*", ".env", True),
        (".github/workflows/*", ".github/workflows/ci.yml", True),
        ("./.github/workflows/*", ".github/workflows/ci.yml", True),
        ("./.github/workflows/*", "github/workflows/ci.yml", False),
        (".//x", "x", False),
        ("**", ".git/config", True),
        ("a/*/c", "a/b/c", True),
        ("a/*/c", "a/b/d/c", False),
    ],
)
def test_match_path(pattern: str, path: str, expected: bool) -> None:
    assert match_path(pattern, path) is expected


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("echo *", "echo a b/c", True),
        ("git status", "git status", True),
        ("git status", "git status --short", False),
        ("rm *", "rm -rf /", True),
        ("ls ?", "ls a", True),
        ("ls [ab]", "ls c", False),
        ("echo {a,b}", "echo a", False),
        ("echo {a,b}", "echo {a,b}", True),
        ("*", ".hidden thing", True),
    ],
)
def test_match_text(pattern: str, text: str, expected: bool) -> None:
    assert match_text(pattern, text) is expected


_segment = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"),
    min_size=1,
    max_size=12,
).filter(lambda s: s not in (".", ".."))


@settings(max_examples=300, deadline=None)
@given(st.lists(_segment, min_size=1, max_size=4))
def test_escaped_path_matches_exactly_its_source(segments: list[str]) -> None:
    path = "/".join(segments)
    assert match_path(escape_path(path), path)


@settings(max_examples=300, deadline=None)
@given(st.lists(_segment, min_size=1, max_size=3), st.lists(_segment, min_size=1, max_size=3))
def test_escaped_path_matches_nothing_else(a: list[str], b: list[str]) -> None:
    source, other = "/".join(a), "/".join(b)
    if source != other:
        assert not match_path(escape_path(source), other)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")))
def test_escaped_text_matches_exactly_its_source(text: str) -> None:
    assert match_text(escape_text(text), text)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=20), st.text(max_size=20))
def test_escaped_text_matches_nothing_else(a: str, b: str) -> None:
    if a != b:
        assert not match_text(escape_text(a), b)


_ANY_PATTERNS = (
    ("**/.env", "**/*.pem", "**/.aws/credentials", "**/id_rsa*", "**/a?/*.key"),
    ("**/*.py", "src/**", "**/[ab].txt"),
    ("**/{x,y}.md", "**/.env.*"),
)
_PIECES = ". .. a ab .env x.pem .aws credentials id_rsa id_rsa.pub k.key a.py b.txt x.md .env.local"
_piece = st.sampled_from(["", *_PIECES.split()])


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(_ANY_PATTERNS), st.lists(_piece, min_size=1, max_size=4), st.booleans())
def test_any_path_matcher_agrees_with_each_pattern(
    patterns: tuple[str, ...], pieces: list[str], dotted: bool
) -> None:
    path = ("./" if dotted else "") + "/".join(pieces)
    expected = any(match_path(pattern, path) for pattern in patterns)
    assert any_path_matcher(patterns)(path) == expected
