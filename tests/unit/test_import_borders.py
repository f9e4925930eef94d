"""The architecture's import borders, read from the source with ast.

Imports point one way: cli, lsp -> conversation -> loop -> runtime, tools,
context -> session, providers, workspace, permissions -> contracts.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# package -> the agentls packages it must never import (directly).
FORBIDDEN: dict[str, set[str]] = {
    "contracts": {"providers", "loop", "runtime", "tools", "context", "conversation", "session",
                  "workspace", "permissions", "cli", "lsp", "pricing"},
    "providers": {"tools", "session", "runtime", "loop", "context", "conversation", "cli", "lsp",
                  "workspace", "permissions"},
    "session": {"loop", "runtime", "tools", "providers", "context", "conversation", "cli", "lsp",
                "workspace", "permissions"},
    "workspace": {"loop", "runtime", "tools", "providers", "context", "conversation", "cli", "lsp",
                  "session", "permissions"},
    "permissions": {"loop", "runtime", "tools", "providers", "context", "conversation", "cli",
                    "lsp", "session"},
    "context": {"loop", "runtime", "tools", "conversation", "cli", "lsp", "session"},
    "runtime": {"loop", "conversation", "cli", "lsp", "providers", "tools"},
    "tools": {"loop", "runtime", "conversation", "cli", "lsp", "providers", "session", "context",
              "permissions", "intelligence"},
    "loop": {"conversation", "cli", "lsp", "tools"},
    "checkpoints": {"loop", "runtime", "tools", "providers", "context", "conversation", "cli",
                    "lsp", "session", "permissions"},
    "conversation": {"cli", "lsp"},
    "mcp": {"loop", "conversation", "cli", "lsp", "runtime", "tools", "providers", "session",
            "context", "pricing"},
    "lsp": {"cli"},
    # agentls's own language-server client: below the conversation, beside mcp.
    "intelligence": {"loop", "conversation", "cli", "lsp", "runtime", "tools", "providers",
                     "session", "context", "permissions", "mcp", "checkpoints"},
    "acp": {"cli", "lsp"},
}  # fmt: skip
THIRD_PARTY_ONLY_IN_LSP = {"pygls", "lsprotocol"}
THIRD_PARTY_ONLY_IN_ACP = {"acp"}


def package_files(package: str) -> list[Path]:
    base = ROOT / ("tools" if package == "tools" else f"server/{package}")
    return sorted(base.rglob("*.py"))


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text("utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def agentls_package(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "agentls" or len(parts) < 2:
        return None
    return parts[1]


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_import_crosses_a_border(package: str) -> None:
    files = package_files(package)
    assert files, f"no source files found for {package}"
    offences = []
    for path in files:
        for module in imported_modules(path):
            target = agentls_package(module)
            if target in FORBIDDEN[package]:
                offences.append(f"{path.relative_to(ROOT)} imports {module}")
    assert not offences, "\n".join(offences)


def test_only_the_lsp_face_imports_pygls_or_lsprotocol() -> None:
    offences = []
    for path in [*ROOT.joinpath("server").rglob("*.py"), *ROOT.joinpath("tools").rglob("*.py")]:
        if path.relative_to(ROOT).parts[1:2] in (("lsp",), ("intelligence",)):
            continue
        for module in imported_modules(path):
            if module.split(".")[0] in THIRD_PARTY_ONLY_IN_LSP:
                offences.append(f"{path.relative_to(ROOT)} imports {module}")
    assert not offences, "\n".join(offences)


def test_the_border_checker_sees_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from agentls.tools import BUILTIN_TOOLS\nimport pygls.server\n")
    modules = imported_modules(bad)
    assert agentls_package("agentls.tools.BUILTIN_TOOLS") == "tools"
    assert "pygls.server" in modules and "agentls.tools" in modules


def test_only_the_acp_face_imports_the_acp_sdk() -> None:
    offences = []
    for path in [*ROOT.joinpath("server").rglob("*.py"), *ROOT.joinpath("tools").rglob("*.py")]:
        if "acp" in path.relative_to(ROOT).parts[1:2]:
            continue
        for module in imported_modules(path):
            if module.split(".")[0] in THIRD_PARTY_ONLY_IN_ACP:
                offences.append(f"{path.relative_to(ROOT)} imports {module}")
    assert not offences, "\n".join(offences)
