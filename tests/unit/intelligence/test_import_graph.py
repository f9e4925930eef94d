"""The intelligence package's import graph, read from the source as the LSP face's is
(`tests/unit/lsp/test_import_graph.py`): every import counts, those under TYPE_CHECKING
and inside functions too. The cut it holds: the hub is a process registry that knows
no answerer; agentls's own servers and the editor's answers are two implementations
that know neither each other nor the router; the router composes them through
Protocols alone; `languages` is the one module that builds them."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.unit.lsp.test_import_graph import find_cycle, imported

INTELLIGENCE = Path(__file__).resolve().parents[3] / "server" / "intelligence"
PACKAGE = "agentls.intelligence"
HUB, OWN, EDITOR, ROUTER, LANGUAGES, AFTER_EDITS = (
    f"{PACKAGE}.{m}"
    for m in ("hub", "own_servers", "editor_answers", "router", "languages", "after_edits")
)
ANSWERERS = {OWN, EDITOR, ROUTER, LANGUAGES, AFTER_EDITS}


def graph() -> dict[str, set[str]]:
    trees = {
        f"{PACKAGE}.{path.stem}": ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(INTELLIGENCE.glob("*.py"))
        if path.stem != "__init__"
    }
    return {name: imported(tree) & set(trees) - {name} for name, tree in trees.items()}


def reachable(edges: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for module in edges[todo.pop()] - seen:
            seen.add(module)
            todo.append(module)
    return seen


def test_the_package_has_no_import_cycle() -> None:
    edges = graph()
    assert ANSWERERS | {HUB} <= set(edges)
    assert find_cycle(edges) is None, " -> ".join(find_cycle(edges) or [])


def test_the_hub_knows_no_answerer() -> None:
    assert not reachable(graph(), HUB) & ANSWERERS


def test_the_two_implementations_know_neither_each_other_nor_the_router() -> None:
    edges = graph()
    assert not reachable(edges, OWN) & {EDITOR, ROUTER, LANGUAGES}
    assert not reachable(edges, EDITOR) & {OWN, HUB, ROUTER, LANGUAGES}


def test_the_router_composes_them_through_protocols_and_languages_builds_them() -> None:
    edges = graph()
    assert not reachable(edges, ROUTER) & {OWN, EDITOR, HUB, LANGUAGES}
    assert {HUB, OWN, EDITOR, ROUTER} <= edges[LANGUAGES]
    assert not any(LANGUAGES in edges[m] for m in edges)  # nothing in the package builds it


def test_no_private_name_is_imported_across_modules() -> None:
    offences = []
    for path in sorted(INTELLIGENCE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PACKAGE):
                offences += [f"{path.name}: {a.name}" for a in node.names if a.name[0] == "_"]
    assert not offences, offences
