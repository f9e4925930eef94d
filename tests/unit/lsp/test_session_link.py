"""SessionLink: what a workspace made before its conversation learns once that is open."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agentls.contracts.running import calling
from agentls.contracts.tooling import ToolIntent
from agentls.lsp.files.lsp_workspace import LspWorkspace
from agentls.lsp.files.session_link import SessionLink
from agentls.permissions.modes import Mode
from agentls.permissions.policy import PermissionPolicy
from agentls.permissions.rules import RuleSet

from .fake_editor import FakeEditor


def test_an_unbound_link_reviews_every_edit_and_tells_nobody() -> None:
    link = SessionLink()
    assert (link.session_id, link.needs_review("a.py"), link.listener) == ("", True, None)
    link.edit("edit_applied", {"path": "a.py"})  # nobody listens: nothing happens


def test_binding_follows_the_policy_as_its_mode_changes() -> None:
    policy = PermissionPolicy(edits_reviewed_by_workspace=True)
    link = SessionLink()
    link.bind("s1", policy)
    assert (link.session_id, link.needs_review("a.py")) == ("s1", True)
    policy.mode = Mode.ACCEPT_EDITS
    assert link.needs_review("a.py") is False
    assert link.needs_review("a.py", ".git/config") is True  # a control file among them


def test_the_policy_reviews_what_its_rules_leave_for_the_tool_that_makes_the_edit() -> None:
    rules = RuleSet.from_settings({"allow": ["edit_file(src/**)"]})
    link = SessionLink("s1", PermissionPolicy(rules, edits_reviewed_by_workspace=True))
    with calling(ToolIntent("c1", "edit_file", {})):
        assert link.needs_review("src/a.py") is False
        assert link.needs_review("b.py") is True
    with calling(ToolIntent("c2", "write_file", {})):
        assert link.needs_review("src/a.py") is True  # the rule names edit_file only
    assert link.needs_review("src/a.py") is True  # no call running: as a write_file


def test_each_run_hears_its_own_edits() -> None:
    heard: list[tuple[str, str, dict[str, Any]]] = []
    link = SessionLink("s1")
    link.attach(lambda kind, payload: heard.append(("run-1", kind, payload)))
    link.edit("edit_proposed", {"path": "a.py"})
    link.attach(lambda kind, payload: heard.append(("run-2", kind, payload)))
    link.edit("edit_applied", {"path": "a.py"})
    assert [(run, kind) for run, kind, _ in heard] == [
        ("run-1", "edit_proposed"),
        ("run-2", "edit_applied"),
    ]


def test_the_workspace_reads_its_link_and_never_sets_it(tmp_path: Path) -> None:
    policy = SimpleNamespace(mode=Mode.PLAN)
    link = SessionLink("s1", policy)
    workspace = LspWorkspace(FakeEditor(), tmp_path, link=link)
    assert workspace.link is link
    assert (workspace.link.session_id, workspace.link.policy) == ("s1", policy)
    listener = lambda kind, payload: None  # noqa: E731
    link.attach(listener)
    assert workspace.link.listener is listener
    with pytest.raises(AttributeError):
        workspace.link.listener = None  # type: ignore[misc]
