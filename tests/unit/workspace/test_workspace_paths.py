"""Path confinement and secret-file detection."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentls.contracts.tooling import ErrorCode, ToolError
from agentls.workspace.paths import confine, is_secret_path


@pytest.fixture
def tree(root: Path, outside: Path) -> Path:
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("a\n")
    os.symlink(outside, root / "out_link")
    os.symlink(outside / "secret.txt", root / "secret_link.txt")
    os.symlink(root / "src" / "a.py", root / "inner_link.py")
    return root.resolve()


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("src/a.py", "src/a.py"),
        ("./src//a.py", "src/a.py"),
        ("src/../src/a.py", "src/a.py"),
        ("", "."),
        (".", "."),
        ("new/dir/file.txt", "new/dir/file.txt"),
        ("inner_link.py", "inner_link.py"),
    ],
)
def test_paths_inside_the_root_become_relative(tree: Path, given: str, expected: str) -> None:
    assert confine(tree, given) == expected


def test_absolute_path_inside_the_root_is_accepted(tree: Path) -> None:
    assert confine(tree, str(tree / "src" / "a.py")) == "src/a.py"


@pytest.mark.parametrize(
    "given",
    [
        "..",
        "../outside/secret.txt",
        "src/../../outside/secret.txt",
        "/etc/passwd",
        "out_link/secret.txt",
        "secret_link.txt",
        "out_link/new_file.txt",
        "~/.ssh/id_rsa",
    ],
)
def test_paths_leading_outside_are_refused(tree: Path, given: str) -> None:
    with pytest.raises(ToolError) as caught:
        confine(tree, given)
    assert caught.value.code is ErrorCode.PERMISSION_DENIED
    assert "outside the workspace" in str(caught.value)


def test_absolute_path_to_a_sibling_with_the_root_as_prefix_is_refused(tree: Path) -> None:
    sibling = tree.parent / (tree.name + "-other")
    sibling.mkdir()
    with pytest.raises(ToolError):
        confine(tree, str(sibling / "x"))


@pytest.mark.parametrize(
    ("rel", "secret"),
    [
        (".env", True),
        ("app/.env", True),
        (".env.local", True),
        ("deploy/.env.production", True),
        (".env.example", False),
        (".env.sample", False),
        ("config/.env.template", False),
        ("certs/server.pem", True),
        ("tls/private.key", True),
        ("keystore.p12", True),
        ("cert.PFX", True),
        ("id_rsa", True),
        ("home/.ssh/id_ed25519", True),
        ("id_ecdsa_work", True),
        ("id_rsa.pub", False),
        (".aws/credentials", True),
        ("home/.aws/credentials", True),
        ("credentials", False),
        (".netrc", True),
        (".npmrc", True),
        (".pypirc", True),
        ("gcp/credentials.json", True),
        (".git-credentials", True),
        ("secrets.yaml", True),
        ("config/secrets.json", True),
        ("src/environment.py", False),
        ("src/main.py", False),
        ("README.md", False),
        ("keys.py", False),
        ("secretsmanager.py", False),
        (".envrc", False),
        ("", False),
    ],
)
def test_secret_paths(rel: str, secret: bool) -> None:
    assert is_secret_path(rel) is secret


def test_secret_patterns_can_be_replaced() -> None:
    assert is_secret_path("vault/token.txt", ("vault/*",))
    assert not is_secret_path(".env", ("vault/*",))
