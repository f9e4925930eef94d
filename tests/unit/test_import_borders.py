"""The architecture's import borders, read from ARCHITECTURE.md's "Layers" section and
checked against the source with ast.

The section's numbered list is the layers, top to bottom: every package sits in one and
imports only packages in the layers below its own, never one beside it or above it. The
bullets under it narrow that: "`X` imports only `A`, `B`", "`X` never imports `A`, `B`"
and "`X` starts `agentls.Y.main`" (an entry module it may import despite the layers), each
with its reason after a colon.
The document is the one copy; this file reads it and fails, naming the package, when the
list and the packages in server/ and tools/ disagree."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCUMENT = ROOT / "ARCHITECTURE.md"
THIRD_PARTY_ONLY_IN_LSP = {"pygls", "lsprotocol"}
THIRD_PARTY_ONLY_IN_ACP = {"acp"}
NOT_PACKAGES = {"__init__.py", "__main__.py", "py.typed", "data", "__pycache__"}

_SECTION = re.compile(r"^## Layers\n(.*?)(?=^## |\Z)", re.S | re.M)
_LAYER = re.compile(r"^\d+\. (.+)$", re.M)
_BULLET = re.compile(r"^- (.+)$", re.M)
_NAME = re.compile(r"`([a-z_.]+)`")
_VERB = re.compile(r" (imports? only|never imports?|starts?) ")
_VERBS = ("import only", "never import", "start")


class LayerListError(AssertionError):
    """ARCHITECTURE.md's layer list is missing or cannot be read."""


@dataclass(frozen=True)
class Layers:
    """What the "Layers" section says: the layers, and the borders narrower than them."""

    layers: tuple[tuple[str, ...], ...]
    only: dict[str, frozenset[str]] = field(default_factory=dict)
    never: dict[str, frozenset[str]] = field(default_factory=dict)
    entry_points: dict[str, frozenset[str]] = field(default_factory=dict)

    @property
    def packages(self) -> list[str]:
        return [p for layer in self.layers for p in layer]


def read_layers(text: str) -> Layers:
    """The "Layers" section of ``text``: a numbered list of backquoted package names per
    layer, then bullets of the form "`X` imports only / never imports / starts `A`, `B`"."""
    section = _SECTION.search(text)
    if section is None:
        raise LayerListError("ARCHITECTURE.md has no '## Layers' section")
    body = section.group(1)
    layers = tuple(tuple(_NAME.findall(item)) for item in _LAYER.findall(body))
    if not layers or not all(layers):
        raise LayerListError(
            "ARCHITECTURE.md's '## Layers' needs a numbered list, one layer a line, "
            "each naming its packages in backquotes"
        )
    rules: dict[str, dict[str, frozenset[str]]] = {verb: {} for verb in _VERBS}
    for bullet in _BULLET.findall(body):
        verb = _VERB.search(bullet)
        if verb is None:
            raise LayerListError(f"a '## Layers' bullet says none of {_VERBS}: {bullet!r}")
        key = verb.group(1).replace("imports", "import").replace("starts", "start")
        objects = bullet[verb.end() :].split(":", 1)[0]  # after a colon: the reason
        for subject in _NAME.findall(bullet[: verb.start()]):
            rules[key][subject] = frozenset(_NAME.findall(objects))
    return Layers(layers, rules["import only"], rules["never import"], rules["start"])


LAYERS = read_layers(DOCUMENT.read_text("utf-8"))
ALL_PACKAGES = sorted(LAYERS.packages)
FACES = LAYERS.layers[0]


def layer_of(package: str) -> int:
    return next(i for i, layer in enumerate(LAYERS.layers) if package in layer)


def allowed_imports(package: str) -> frozenset[str]:
    """The agentls packages ``package`` may import, as the document's layer list says."""
    if package in LAYERS.only:
        return LAYERS.only[package]
    below = LAYERS.layers[layer_of(package) + 1 :]
    allowed = frozenset(p for layer in below for p in layer)
    return allowed - LAYERS.never.get(package, frozenset())


def packages_in_the_tree() -> set[str]:
    entries = (ROOT / "server").iterdir()
    return {"tools"} | {p.name.removesuffix(".py") for p in entries if p.name not in NOT_PACKAGES}


def disagreements(listed: list[str], found: set[str]) -> list[str]:
    """What the layer list and the tree disagree on, each said in one line."""
    problems = [
        f"`{p}` is a package but not in ARCHITECTURE.md's layer list: place it in a layer"
        for p in sorted(found - set(listed))
    ]
    problems += [
        f"`{p}` is in ARCHITECTURE.md's layer list but there is no such package"
        for p in sorted(set(listed) - found)
    ]
    twice = sorted({p for p in listed if listed.count(p) > 1})
    problems += [f"`{p}` is in more than one layer" for p in twice]
    return problems


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
    entry_points = LAYERS.entry_points.get(package, frozenset())
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
    problems = disagreements(LAYERS.packages, packages_in_the_tree())
    assert not problems, "\n".join(problems)


def test_a_disagreement_is_named() -> None:
    listed = ["contracts", "ghost", "workspace", "workspace"]
    assert disagreements(listed, {"contracts", "workspace", "newcomer"}) == [
        "`newcomer` is a package but not in ARCHITECTURE.md's layer list: place it in a layer",
        "`ghost` is in ARCHITECTURE.md's layer list but there is no such package",
        "`workspace` is in more than one layer",
    ]


def test_the_layer_list_is_read_from_the_document() -> None:
    text = """## Layers\n\n1. `a`, `b` (faces)\n2. `c`\n3. `d`\n
- `a`, `b` import only `d`: a reason, with `c` named after the colon
- `c` never imports `d`
- `a` starts `agentls.b.main`

## Next
1. `not_a_layer`
"""
    read = read_layers(text)
    assert read.layers == (("a", "b"), ("c",), ("d",))
    assert read.only == {"a": {"d"}, "b": {"d"}}
    assert read.never == {"c": {"d"}}
    assert read.entry_points == {"a": {"agentls.b.main"}}
    with pytest.raises(LayerListError, match="no '## Layers' section"):
        read_layers("# Architecture\n")
    with pytest.raises(LayerListError, match="numbered list"):
        read_layers("## Layers\n\nno list here\n")
    with pytest.raises(LayerListError, match="none of"):
        read_layers("## Layers\n\n1. `a`\n\n- `a` may import anything\n")


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
