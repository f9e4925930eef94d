"""The intelligence package's import graph, read from the source as the LSP face's is
(`tests/unit/lsp/test_import_graph.py`): every import counts, those under TYPE_CHECKING
and inside functions too."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.unit.lsp.test_import_graph import find_cycle, imported

INTELLIGENCE = Path(__file__).resolve().parents[3] / "server" / "intelligence"
PACKAGE = "agentls.intelligence"


def graph() -> dict[str, set[str]]:
    trees = {
        f"{PACKAGE}.{path.stem}": ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(INTELLIGENCE.glob("*.py"))
        if path.stem != "__init__"
    }
    return {name: imported(tree) & set(trees) - {name} for name, tree in trees.items()}


def test_the_package_has_no_import_cycle() -> None:
    edges = graph()
    assert {f"{PACKAGE}.{m}" for m in ("hub", "editor", "service")} <= set(edges)
    assert find_cycle(edges) is None, " -> ".join(find_cycle(edges) or [])


def test_the_hub_editor_and_service_import_one_way() -> None:
    edges = graph()
    hub, editor, service = (f"{PACKAGE}.{m}" for m in ("hub", "editor", "service"))
    assert editor in edges[hub] and service in edges[editor]
    assert hub not in edges[editor] | edges[service] and editor not in edges[service]
