"""rename's permission: the rules are matched against every file it changes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentls.contracts.decisions import Verdict
from agentls.contracts.tooling import Risk
from agentls.permissions.modes import Mode
from agentls.permissions.policy import PermissionPolicy
from agentls.permissions.rules import RuleSet
from agentls.runtime.subjects import strictest
from agentls.tools.rename import RENAME, RenameInput
from agentls.workspace.interface import ToolContext
from agentls.workspace.language import FileChange
from agentls.workspace.local import LocalWorkspace

TOUCHED = ["shapes.py", "use.py", "settings/ci.py"]


def policy(**rules: Any) -> PermissionPolicy:
    return PermissionPolicy(RuleSet.from_settings(rules), mode=Mode.ACCEPT_EDITS)


async def decide(tmp_path: Path, rules: PermissionPolicy) -> tuple[str, Verdict, str, bool]:
    ctx = ToolContext(workspace=LocalWorkspace(tmp_path))
    args = RenameInput(path="shapes.py", line=1, symbol="total", new_name="sum_areas")
    # The language server's answer, as the tool asks it once per call.
    args._answer = [FileChange(p, "total\n", "sum_areas\n", "v") for p in TOUCHED]
    subject = RENAME.subject(args)
    first = rules.evaluate(RENAME.name, Risk.WRITE, "path", subject)
    subject, found = await strictest(rules, RENAME, args, ctx, subject, first)
    return subject, found.verdict, found.source, found.person_only


async def test_a_rename_that_touches_a_protected_path_asks_a_person(tmp_path: Path) -> None:
    rules = policy(protectedPaths=["settings/**"])
    subject, verdict, why, person_only = await decide(tmp_path, rules)
    assert (subject, verdict, person_only) == ("settings/ci.py", Verdict.ASK, True)
    assert "settings/ci.py is a control file" in why


async def test_a_deny_rule_for_any_touched_file_denies_the_rename(tmp_path: Path) -> None:
    subject, verdict, why, _ = await decide(tmp_path, policy(deny=["rename(use.py)"]))
    assert (subject, verdict) == ("use.py", Verdict.DENY) and "rename(use.py)" in why


async def test_an_allow_rule_for_the_named_file_alone_does_not_cover_the_others(
    tmp_path: Path,
) -> None:
    rules = policy(allow=["rename(shapes.py)"], ask=["rename(use.py)"])
    subject, verdict, _, person_only = await decide(tmp_path, rules)
    assert (subject, verdict, person_only) == ("use.py", Verdict.ASK, False)


async def test_a_rename_of_ordinary_files_goes_by_the_mode(tmp_path: Path) -> None:
    subject, verdict, _, _ = await decide(tmp_path, policy())
    assert (subject, verdict) == ("shapes.py", Verdict.ALLOW)  # accept-edits mode
