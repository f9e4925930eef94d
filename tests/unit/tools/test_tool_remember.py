"""remember only proposes: the gate asks in every mode (plan mode shows it), and the
tool hands what was said yes to to the session's store, nothing else."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from agentls.contracts.decisions import Verdict
from agentls.contracts.tooling import ToolError
from agentls.permissions.modes import Mode, is_visible
from agentls.permissions.policy import PermissionPolicy
from agentls.tools.remember import REMEMBER, RememberInput
from agentls.workspace.interface import ToolContext
from agentls.workspace.local import LocalWorkspace


class Kept:
    def __init__(self) -> None:
        self.calls: list[tuple[str, str, list[str]]] = []

    async def keep(self, content: str, scope: str, evidence: Sequence[str]) -> str:
        self.calls.append((content, scope, list(evidence)))
        return "kept as m-1"


@pytest.mark.parametrize("mode", list(Mode))
def test_every_mode_asks_and_plan_mode_shows_it(mode: Mode) -> None:
    policy = PermissionPolicy(mode=mode)
    decision = policy.evaluate("remember", REMEMBER.risk, "text", "uses pnpm")
    assert decision.verdict is Verdict.ASK and not decision.person_only
    assert is_visible(REMEMBER.risk, mode)


async def test_it_hands_the_proposal_to_the_store(tmp_path: Path) -> None:
    ctx = ToolContext(LocalWorkspace(tmp_path))
    params = RememberInput(content="uses pnpm", evidence=["toolu_1"])
    with pytest.raises(ToolError, match="not kept here"):
        await REMEMBER.run(params, ctx)
    kept = Kept()
    ctx.memory = kept
    output = await REMEMBER.run(params, ctx)
    assert output.text == "kept as m-1" and kept.calls == [("uses pnpm", "project", ["toolu_1"])]
