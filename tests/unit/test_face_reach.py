"""The faces call a conversation's operations, never reach through its parts (read with ast).

A face (server/cli, server/lsp, server/acp) that writes `conversation.provider.model_id`
or `manager.mcp.aclose()` builds an operation of its own out of the conversation's
parts, and the next face writes it again. The conversation layer gives the face the
narrow member it needs (`conversation.model_id`, `manager.shutdown()`), so a chain of
two or more attributes off a conversation or a manager fails here, as a wrong import
fails the import-border test.

Nor does a face read one of their parts at all (`conversation.policy`,
`manager.mcp`): the parts are the public attributes their `__init__` sets, read here
from the code, so a part added later is caught too; the session id is no part.

Which names are a conversation or a manager: a name or an attribute spelled
`conversation`, `conv` or `manager` (`_manager` too), and any parameter, variable or
attribute annotated `Conversation` or `ConversationManager` in the same module."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1].parent
FACES = ("cli", "lsp", "acp")
HOLDER_NAMES = frozenset({"conversation", "conv", "manager", "_manager"})
HOLDER_TYPES = frozenset({"Conversation", "ConversationManager"})
IDENTITY = frozenset({"session_id"})  # what a face names a session by, not a part of it


def parts_of(module: str, cls: str) -> set[str]:
    """The public attributes ``cls`` (in server/conversation/``module``) sets in __init__."""
    tree = ast.parse((ROOT / "server" / "conversation" / module).read_text("utf-8"))
    (klass,) = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls]
    (init,) = [n for n in klass.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
    found = set()
    for node in ast.walk(init):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):
            targets = [node.target]
        else:
            continue
        for target in targets:
            if (
                isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == "self"
                and not target.attr.startswith("_")
            ):
                found.add(target.attr)
    return found


PARTS = (
    frozenset(
        parts_of("one_session.py", "Conversation")
        | parts_of("open_sessions.py", "ConversationManager")
    )
    - IDENTITY
)


def face_files() -> list[Path]:
    return [p for face in FACES for p in sorted((ROOT / "server" / face).rglob("*.py"))]


def _annotated_holders(tree: ast.AST) -> set[str]:
    """Names whose annotation mentions Conversation or ConversationManager."""
    found: set[str] = set()
    for node in ast.walk(tree):
        annotation: ast.expr | None = None
        name: str | None = None
        if isinstance(node, ast.arg):
            annotation, name = node.annotation, node.arg
        elif isinstance(node, ast.AnnAssign):
            annotation = node.annotation
            target = node.target
            name = target.id if isinstance(target, ast.Name) else None
            if isinstance(target, ast.Attribute):
                name = target.attr
        if annotation is None or name is None:
            continue
        words = {n.id for n in ast.walk(annotation) if isinstance(n, ast.Name)}
        words |= {n.attr for n in ast.walk(annotation) if isinstance(n, ast.Attribute)}
        for text in (n.value for n in ast.walk(annotation) if isinstance(n, ast.Constant)):
            if isinstance(text, str):  # a string annotation
                words |= {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}
        if words & HOLDER_TYPES:
            found.add(name)
    return found


def _holder(node: ast.expr, names: frozenset[str] | set[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in names
    return isinstance(node, ast.Attribute) and node.attr in names


def reaches(source: str) -> list[tuple[int, str]]:
    """Each `holder.X.Y` in ``source``: line and the chain, as written."""
    tree = ast.parse(source)
    names = HOLDER_NAMES | _annotated_holders(tree)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)):
            continue
        if _holder(node.value.value, names):
            found.append((node.lineno, ast.unparse(node)))
    return sorted(found)


def part_reads(source: str) -> list[tuple[int, str]]:
    """Each `holder.part` in ``source``: line and the read, as written."""
    tree = ast.parse(source)
    names = HOLDER_NAMES | _annotated_holders(tree)
    found = [
        (node.lineno, ast.unparse(node))
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and node.attr in PARTS and _holder(node.value, names)
    ]
    return sorted(found)


def test_the_parts_are_read_from_the_code() -> None:
    # What faces read through before they had operations; each is still a part.
    assert {"policy", "workspace", "messages", "log", "provider", "mcp"} <= PARTS
    assert not PARTS & {"session_id", "model_id", "mode", "running", "root", "opened"}


def test_the_rule_sees_a_part_read_and_lets_an_operation_pass() -> None:
    source = (
        "def f(c: Conversation, s):\n"
        "    link.bind(c.session_id, c.policy)\n"
        "    s.conversation.messages\n"
        "    self._manager.mcp\n"
        "    c.needs_review('edit_file', 'a.py'), c.history(), c.session_id, c.model_id\n"
    )
    assert [line for line, _ in part_reads(source)] == [2, 3, 4]


def test_the_rule_sees_a_reach_and_lets_a_narrow_call_pass() -> None:
    source = (
        "def f(c: Conversation, m: 'ConversationManager', s):\n"
        "    c.provider.model_id\n"
        "    m.mcp.aclose()\n"
        "    s.conversation.projector.policy.window\n"
        "    self.manager.store.path_for(x)\n"
        "    c.model_id, m.shutdown(), s.conversation.context_window\n"
        "    conversation.root.name\n"
    )
    assert [line for line, _ in reaches(source)] == [2, 3, 4, 5, 7]


@pytest.mark.parametrize("path", face_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_face_calls_the_conversation_and_never_reaches_through_it(path: Path) -> None:
    found = reaches(path.read_text("utf-8"))
    assert not found, "\n".join(
        f"{path.relative_to(ROOT)}:{line}: {chain} (give Conversation or ConversationManager "
        "the member this face needs)"
        for line, chain in found
    )


@pytest.mark.parametrize("path", face_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_a_face_reads_no_part_of_a_conversation_or_a_manager(path: Path) -> None:
    found = part_reads(path.read_text("utf-8"))
    assert not found, "\n".join(
        f"{path.relative_to(ROOT)}:{line}: {read} (a part: give Conversation or "
        "ConversationManager the operation this face needs)"
        for line, read in found
    )
