"""The architecture's import borders (ARCHITECTURE.md, "Borders"), read from the source with ast.

Every package sits in one layer of LAYERS and imports only packages in the layers
below its own, never one beside it or above it; the table is derived from that list.
The faces are narrower: they import only the conversation and the shared packages
(FACE_MAY_IMPORT), and `cli` starts the other two faces through their `main` modules.
Two invariants narrow it further (INVARIANTS)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FACES = ("cli", "lsp", "acp")
# Top to bottom: the diagram's layers, one tuple per arrow step.
LAYERS: tuple[tuple[str, ...], ...] = (
    FACES,
    ("conversation",),
    ("loop", "mcp", "intelligence", "telemetry"),
    ("runtime", "tools", "context", "protocol"),
    ("session", "providers", "pricing", "checkpoints", "memory"),
    ("permissions",),
    ("workspace",),
    ("supervision",),
    ("contracts",),
)
# What a face may import besides itself: the conversation and the shared layers.
FACE_MAY_IMPORT = frozenset(
    {"conversation", "session", "permissions", "protocol", "workspace", "contracts"}
)
# Narrower than the layers, as the invariants say: providers get tool definitions from the
# contracts and nothing else of agentls; tools reach files and processes only through
# the Workspace interface.
INVARIANTS: dict[str, frozenset[str]] = {
    "providers": frozenset({"workspace", "permissions", "supervision"}),
    "tools": frozenset(
        {"permissions", "session", "providers", "pricing", "checkpoints", "supervision"}
    ),
}
# `agentls serve` and `agentls acp` are subcommands: cli starts the other faces.
FACE_ENTRY_POINTS = {"cli": frozenset({"agentls.lsp.main", "agentls.acp.main"})}
THIRD_PARTY_ONLY_IN_LSP = {"pygls", "lsprotocol"}
THIRD_PARTY_ONLY_IN_ACP = {"acp"}
NOT_PACKAGES = {"__init__.py", "__main__.py", "py.typed", "data", "__pycache__"}


def layer_of(package: str) -> int:
    return next(i for i, layer in enumerate(LAYERS) if package in layer)


def allowed_imports(package: str) -> frozenset[str]:
    """The agentls packages ``package`` may import, derived from LAYERS alone."""
    if package in FACES:
        return FACE_MAY_IMPORT
    below = LAYERS[layer_of(package) + 1 :]
    return frozenset(p for layer in below for p in layer) - INVARIANTS.get(package, frozenset())


ALL_PACKAGES = sorted(p for layer in LAYERS for p in layer)


def package_files(package: str) -> list[Path]:
    if package == "tools":
        return sorted((ROOT / "tools").rglob("*.py"))
    module = ROOT / "server" / f"{package}.py"
    if module.is_file():
        return [module]
    return sorted((ROOT / "server" / package).rglob("*.py"))


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


def crosses(package: str, module: str) -> bool:
    target = agentls_package(module)
    if target is None or target.startswith("__") or target == package:
        return False  # not a package (`from agentls import __version__`), or itself
    if target in allowed_imports(package):
        return False
    entry_points = FACE_ENTRY_POINTS.get(package, frozenset())
    return not any(module == e or module.startswith(f"{e}.") for e in entry_points)


@pytest.mark.parametrize("package", ALL_PACKAGES)
def test_no_import_crosses_a_border(package: str) -> None:
    files = package_files(package)
    assert files, f"no source files found for {package}"
    offences = []
    for path in files:
        relative = str(path.relative_to(ROOT))
        for module in sorted(imported_modules(path)):
            if crosses(package, module):
                offences.append(f"{relative} imports {module}")
    assert not offences, "\n".join(offences)


def test_every_package_has_a_layer() -> None:
    entries = (ROOT / "server").iterdir()
    found = {"tools"} | {p.name.removesuffix(".py") for p in entries if p.name not in NOT_PACKAGES}
    assert found == set(ALL_PACKAGES), "place new packages in LAYERS (and the diagram)"
    assert len(ALL_PACKAGES) == len(set(ALL_PACKAGES)), "a package sits in one layer"


def test_the_table_says_what_the_diagram_says() -> None:
    assert allowed_imports("contracts") == frozenset()
    assert allowed_imports("supervision") == {"contracts"}
    assert allowed_imports("workspace") == {"supervision", "contracts"}
    assert allowed_imports("permissions") == {"workspace", "supervision", "contracts"}
    assert allowed_imports("providers") == {"contracts"}
    assert "providers" not in allowed_imports("session")  # beside, not below
    assert allowed_imports("conversation") >= {"loop", "mcp", "intelligence", "runtime", "tools"}
    assert "mcp" not in allowed_imports("loop") and "loop" not in allowed_imports("runtime")
    assert {"mcp", "intelligence"} <= {
        p for p in ALL_PACKAGES if "supervision" in allowed_imports(p)
    }
    core = {"loop", "mcp", "intelligence", "runtime", "tools", "context", "providers"}
    for face in FACES:
        assert not allowed_imports(face) & (
            core | {"pricing", "checkpoints", "supervision", *FACES}
        )


def test_the_border_checker_sees_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from agentls.tools import BUILTIN_TOOLS\nimport pygls.server\n")
    modules = imported_modules(bad)
    assert agentls_package("agentls.tools.BUILTIN_TOOLS") == "tools"
    assert "pygls.server" in modules and "agentls.tools" in modules
    assert crosses("lsp", "agentls.tools")
    assert crosses("lsp", "agentls.loop.steps")
    assert crosses("cli", "agentls.lsp.server")
    assert not crosses("cli", "agentls.lsp.main")
    assert crosses("session", "agentls.providers.base")


def test_only_the_lsp_face_imports_pygls_or_lsprotocol() -> None:
    offences = []
    for path in [*ROOT.joinpath("server").rglob("*.py"), *ROOT.joinpath("tools").rglob("*.py")]:
        if path.relative_to(ROOT).parts[1:2] in (("lsp",), ("intelligence",)):
            continue
        for module in imported_modules(path):
            if module.split(".")[0] in THIRD_PARTY_ONLY_IN_LSP:
                offences.append(f"{path.relative_to(ROOT)} imports {module}")
    assert not offences, "\n".join(offences)


def test_only_the_acp_face_imports_the_acp_sdk() -> None:
    offences = []
    for path in [*ROOT.joinpath("server").rglob("*.py"), *ROOT.joinpath("tools").rglob("*.py")]:
        if "acp" in path.relative_to(ROOT).parts[1:2]:
            continue
        for module in imported_modules(path):
            if module.split(".")[0] in THIRD_PARTY_ONLY_IN_ACP:
                offences.append(f"{path.relative_to(ROOT)} imports {module}")
    assert not offences, "\n".join(offences)
