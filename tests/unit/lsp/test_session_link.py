"""SessionLink: what a workspace made before its conversation learns once that is open."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from agentls.lsp.files.lsp_workspace import LspWorkspace
from agentls.lsp.files.session_link import SessionLink
from agentls.permissions.modes import Mode

from .fake_editor import FakeEditor


def test_an_unbound_link_reviews_as_the_default_mode_and_tells_nobody() -> None:
    link = SessionLink()
    assert (link.session_id, link.mode, link.listener) == ("", Mode.DEFAULT, None)
    link.edit("edit_applied", {"path": "a.py"})  # nobody listens: nothing happens


def test_binding_follows_the_policy_as_its_mode_changes() -> None:
    policy = SimpleNamespace(mode=Mode.DEFAULT)
    link = SessionLink()
    link.bind("s1", policy)
    policy.mode = Mode.ACCEPT_EDITS
    assert (link.session_id, link.mode) == ("s1", Mode.ACCEPT_EDITS)


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
