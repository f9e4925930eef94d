"""The masking prefilter (no run of 15 key-like characters: nothing to mask) never lets
through the shortest secret of each kind, alone in a text of short words."""

from __future__ import annotations

import pytest

from agentls.workspace.redaction import mask_secrets

SHORTEST = [
    "xoxb-" + "a1b2c3d4e5",  # 15 characters: the shortest prefixed token
    "AKIA" + "ABCDEFGH12345678",
    "eyJ" + "a" * 10 + ".eyJ" + "b" * 10 + "." + "c" * 10,
    "sk-" + "Ab1" * 7,
]


@pytest.mark.parametrize("secret", SHORTEST)
def test_the_shortest_tokens_are_masked(secret: str) -> None:
    text = f"def f(x):  # {secret} is here\n    return x\n"
    masked, count = mask_secrets(text)
    assert count == 1 and secret not in masked


def test_an_assigned_value_of_sixteen_is_masked() -> None:
    masked, count = mask_secrets("x = 1\ntoken = aB3dE6gH9jK2mN5p\n")
    assert count == 1 and "aB3dE6gH9jK2mN5p" not in masked


def test_a_private_key_header_alone_is_masked() -> None:
    masked, count = mask_secrets("-----BEGIN RSA PRIVATE KEY-----\nMIIE")
    assert count == 1 and "MIIE" not in masked


def test_plain_source_is_unchanged() -> None:
    text = "".join(f"def handler_{k:04d}(request):  # fixed fake source line\n" for k in range(64))
    assert mask_secrets(text) == (text, 0)
