"""Only the conversation and the faces know MCP: the runtime and the layers under it
take MCP tools as plain ToolDefinitions, and the mcp package stays below the loop."""

from __future__ import annotations

import pytest

from tests.unit.test_import_borders import ROOT, agentls_package, imported_modules, package_files

NEVER_IMPORT_MCP = ["contracts", "providers", "session", "workspace", "permissions", "context",
                    "runtime", "loop", "checkpoints"]  # fmt: skip


@pytest.mark.parametrize("package", NEVER_IMPORT_MCP)
def test_lower_layers_do_not_know_mcp(package: str) -> None:
    offences = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path in package_files(package)
        for module in imported_modules(path)
        if agentls_package(module) == "mcp" or module.split(".")[0] == "mcp"
    ]
    assert not offences, "\n".join(offences)


def test_tools_do_not_know_mcp() -> None:
    offences = [
        f"{path.relative_to(ROOT)} imports {module}"
        for path in (ROOT / "tools").rglob("*.py")
        for module in imported_modules(path)
        if agentls_package(module) == "mcp" or module.split(".")[0] == "mcp"
    ]
    assert not offences, "\n".join(offences)
