"""The `**/tail` fast path of any_path_matcher (literal, prefix and suffix tails) answers
exactly as each glob does on its own, strange spellings included."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agentls.workspace.globs import any_path_matcher, match_path

_ATOMS = ["a", "b", ".", "..", ".env", "x.pem", "id_rsa", "-", "_", "é", "A", " "]
_WILD = [*_ATOMS, "*", "?", "/"]
_segment = st.lists(st.sampled_from(_ATOMS), max_size=3).map("".join)
_tail_piece = st.lists(st.sampled_from(_WILD), max_size=3).map("".join)
_pattern = st.lists(_tail_piece, min_size=1, max_size=3).map(lambda p: "**/" + "/".join(p))


@settings(max_examples=800, deadline=None)
@given(
    st.lists(_pattern, min_size=1, max_size=5).map(tuple),
    st.lists(_segment, min_size=1, max_size=4),
    st.booleans(),
)
def test_tails_agree_with_each_glob(
    patterns: tuple[str, ...], pieces: list[str], dotted: bool
) -> None:
    path = ("./" if dotted else "") + "/".join(pieces)
    expected = any(match_path(pattern, path) for pattern in patterns)
    assert any_path_matcher(patterns)(path) == expected


@settings(max_examples=400, deadline=None)
@given(st.lists(_pattern, min_size=1, max_size=5).map(tuple), st.data())
def test_paths_spelled_from_the_patterns_agree(
    patterns: tuple[str, ...], data: st.DataObject
) -> None:
    tail = data.draw(st.sampled_from(patterns))[3:]
    filled = tail.replace("*", data.draw(_segment)).replace("?", data.draw(st.sampled_from("ab.-")))
    path = "/".join([*data.draw(st.lists(_segment, max_size=2)), filled])
    expected = any(match_path(pattern, path) for pattern in patterns)
    assert any_path_matcher(patterns)(path) == expected


def test_each_kind_of_tail() -> None:
    matches = any_path_matcher(("**/.env", "**/*.pem", "**/id_rsa*", "**/.aws/credentials",
                                "**/id_*.pub", "**//b"))  # fmt: skip
    assert matches(".env") and matches("a/.env") and not matches("a/.envrc")
    assert matches("k/x.pem") and matches(".pem") and not matches("x.pem.txt")
    assert matches("id_rsa") and matches("d/id_rsa.old") and not matches("my_id_rsa")
    assert matches("h/.aws/credentials") and not matches("aws/credentials")
    assert matches("id_x.pub") and not matches("id_x.pubx")
    assert matches("a/b") == match_path("**//b", "a/b")
