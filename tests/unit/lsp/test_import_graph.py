"""The language-server face's import graph, read from the source.

Every import counts, also those under TYPE_CHECKING and inside functions: a
cycle hidden from the interpreter is still two modules that cannot be
understood, tested or changed apart.
"""

from __future__ import annotations

import ast
from pathlib import Path

LSP = Path(__file__).resolve().parents[3] / "server" / "lsp"
PACKAGE = "agentls.lsp"
# Layers under the conversation that the face must reach only through it.
BELOW_THE_CONVERSATION = ("agentls.loop", "agentls.runtime", "agentls.providers", "agentls.tools")


def modules() -> dict[str, ast.Module]:
    return {
        ".".join((PACKAGE, *path.relative_to(LSP).with_suffix("").parts)): ast.parse(
            path.read_text(encoding="utf-8")
        )
        for path in sorted(LSP.rglob("*.py"))
        if path.stem != "__init__"
    }


def imported(tree: ast.Module) -> set[str]:
    """Every module named by an import anywhere in ``tree``."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def graph() -> dict[str, set[str]]:
    found = modules()
    return {name: imported(tree) & set(found) - {name} for name, tree in found.items()}


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a path of modules (first == last), or None."""
    done: set[str] = set()
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        if node in path:
            return [*path[path.index(node) :], node]
        if node in done:
            return None
        path.append(node)
        for target in sorted(edges.get(node, ())):
            cycle = visit(target)
            if cycle is not None:
                return cycle
        path.pop()
        done.add(node)
        return None

    for start in sorted(edges):
        cycle = visit(start)
        if cycle is not None:
            return cycle
    return None


def test_the_search_finds_a_cycle_where_there_is_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_graph_reads_every_kind_of_import() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "from agentls.lsp.editor import routes\n"
        "if TYPE_CHECKING:\n    from agentls.lsp.server import AgentServer\n"
        "def f():\n    import agentls.lsp.asking.review\n"
    )
    assert {
        "agentls.lsp.editor.routes",
        "agentls.lsp.server",
        "agentls.lsp.asking.review",
    } <= imported(tree)


def test_the_face_has_no_import_cycle() -> None:
    edges = graph()
    assert len(edges) > 10  # the face was found
    assert find_cycle(edges) is None, " -> ".join(find_cycle(edges) or [])


def test_only_registration_imports_the_server() -> None:
    """Questions, reviews, approvals and the workspace take the editor client (a
    Protocol), so they can be tested with a fake and never see the server."""
    apart = ("asking", "editor", "files", "questions")
    edges = graph()
    checked = [name for name in edges if name.split(".")[2] in apart]
    checked.append(f"{PACKAGE}.wire.log_forwarding")
    assert len(checked) > 15  # every module of those subpackages was found
    for name in checked:
        assert f"{PACKAGE}.server" not in edges[name], name


def test_the_face_reaches_no_layer_below_the_conversation() -> None:
    for name, tree in modules().items():
        below = sorted(
            module
            for module in imported(tree)
            if any(
                module == layer or module.startswith(layer + ".")
                for layer in BELOW_THE_CONVERSATION
            )
        )
        assert below == [], f"{name} imports {below}"
