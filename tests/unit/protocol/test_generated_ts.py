"""The VS Code client's protocol types are generated from docs/protocol.schema.json."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

CLIENT = Path(__file__).resolve().parents[3] / "vscode-client"


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_generated_types_are_what_the_schema_generates() -> None:
    check = subprocess.run(
        ["node", str(CLIENT / "scripts" / "generate-protocol.mjs"), "--check"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert check.returncode == 0, check.stderr
