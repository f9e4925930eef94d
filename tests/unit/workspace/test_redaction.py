"""Obvious secrets in tool output are masked before the model or the log sees them."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentls.workspace.redaction import mask_secrets
from tests.unit.helpers import call, conversation

SECRETS = [
    "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345",
    "sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz012345",
    "AKIAIOSFODNN7EXAMPLE",
    "ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "glpat-abcdefghij0123456789",
    "xoxb-123456789012-abcdefghijkl",
    "AIzaSyA-abcdefghijklmnopqrstuvwxyz012345",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
]


@pytest.mark.parametrize("secret", SECRETS)
def test_known_token_formats_are_masked(secret: str) -> None:
    masked, count = mask_secrets(f"config: value {secret} end")
    assert secret not in masked and "[secret masked]" in masked
    assert count == 1


def test_private_keys_urls_and_assignments() -> None:
    text = (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
        "-----END OPENSSH PRIVATE KEY-----\n"
        "DATABASE_URL=postgres://app:s3cr3t-pass@db:5432/app\n"
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n"
        'API_TOKEN: "q8W2e9R4t7Y1u6I3o0P5"\n'
    )
    masked, count = mask_secrets(text)
    assert count == 4
    for secret in (
        "b3BlbnNzaC1rZXktdjEAAAAA",
        "s3cr3t-pass",
        "wJalrXUtnFEMI",
        "q8W2e9R4t7Y1u6I3o0P5",
    ):
        assert secret not in masked
    assert "[OPENSSH PRIVATE KEY masked]" in masked and "postgres://app:" in masked


@pytest.mark.parametrize(
    "harmless",
    [
        "password = input('password: ')",
        "def get_token(self) -> str: return self.token_cache_lookup_key",
        "api_key = os.environ['ANTHROPIC_API_KEY']",
        "secret_sauce_recipe_is_undefined_here",
        "tokens_per_second_measured_today = 12",
        "see https://example.com/docs/page",
        "task-runner disk-usage",
    ],
)
def test_ordinary_code_is_left_alone(harmless: str) -> None:
    assert mask_secrets(harmless) == (harmless, 0)


async def test_the_model_and_the_log_never_see_the_secret(tmp_path: Path) -> None:
    secret = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz012345"
    conv, _, _ = conversation(
        tmp_path,
        [
            {"toolCalls": [call("read_file", path="notes.md")]},
            {"expect": {"lastToolResultContains": "[secret masked]"}, "text": "Noted."},
        ],
    )
    (conv.workspace.root / "notes.md").write_text(f"the key is {secret}\n")
    result = await conv.ask("what is in notes.md?")
    assert result.text == "Noted."
    conv.log.sync()
    assert secret not in conv.log.path.read_text()
    assert all(secret not in str(m) for m in conv.messages)
