"""A sample of the gate's classes through the editor face (`agentls serve` driven
by pytest-lsp, the model a fake Anthropic server): the same policy holds there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.e2e.conftest import model_env, root, workspace
from tests.e2e.lsp.conftest import EditorFactory, open_editor
from tests.fakes.anthropic_server import FakeAnthropic, turn

__all__ = ["model_env", "open_editor", "root", "workspace"]  # the editor fixtures, used here

DENY_ATTACKS = ["rm v0", "/bin/rm v1", "'r''m' v2", "env -i rm v3", "bash -c 'rm v4'",
                "echo $(rm v5)", "{rm,v6}", "echo rm v7 | bash", "timeout 5 rm v8",
                "echo v9 | xargs rm", "eval rm v10",
                "find . -name v11 -exec rm {} \\;"]  # fmt: skip
ALLOW_ATTACKS = ["echo hi; touch m0", "echo $(touch m1)", "echo ${x:-$(touch m2)}",
                 "env touch m3", "bash -c 'touch m4'", "/usr/bin/tou[c]h m5"]  # fmt: skip


def calls(lines: list[str], *extra: tuple[str, dict[str, Any]]) -> list[Any]:
    """Each attack followed by a harmless read, so denials never come three in a row."""
    out: list[Any] = []
    items = [("run_command", {"command": line}) for line in lines] + list(extra)
    for index, (name, arguments) in enumerate(items):
        out.append((f"toolu_a{index}", name, arguments))
        out.append((f"toolu_r{index}", "read_file", {"path": "canary.txt"}))
    return out


async def test_bypass_mode_in_the_editor_keeps_deny_rules(
    open_editor: EditorFactory, fake: FakeAnthropic, root: Path
) -> None:
    (root / "canary.txt").write_text("x\n")
    for index in range(len(DENY_ATTACKS)):
        (root / f"v{index}").write_text("precious\n")
    editor = await open_editor(
        configuration={
            "mode": "bypass",
            "sandbox": "off",
            "permissions": {"deny": ["run_command(rm *)"]},
        }
    )
    editor.answers = ["Allow once"] * 40  # a person who would say yes to anything asked
    fake.add(turn(tool_calls=calls([*DENY_ATTACKS, "touch made"])), turn("Done."))
    await editor.ask("clean up", wait=True)
    assert (root / "made").exists()  # bypass mode runs what no rule denies
    survivors = [f"v{i}" for i in range(len(DENY_ATTACKS)) if (root / f"v{i}").exists()]
    assert survivors == [f"v{i}" for i in range(len(DENY_ATTACKS))]
    assert editor.prompts == []  # denied outright: bypass mode asks no one


async def test_allow_rules_and_control_files_in_the_editor(
    open_editor: EditorFactory, fake: FakeAnthropic, root: Path
) -> None:
    (root / "canary.txt").write_text("x\n")
    (root / ".git" / "hooks").mkdir(parents=True)
    editor = await open_editor(
        configuration={
            "mode": "accept-edits",
            "sandbox": "off",
            "permissions": {"allow": ["run_command(echo *)"]},
        }
    )
    editor.answers = ["Deny"] * 40  # the person says no to whatever is asked
    hook = ("write_file", {"path": ".git/hooks/pre-commit", "content": "touch pwned\n"})
    fake.add(turn(tool_calls=calls([*ALLOW_ATTACKS, "echo ok > ok.txt"], hook)), turn("Done."))
    await editor.ask("do things", wait=True)
    assert (root / "ok.txt").exists()  # the allow rule still allows what it names
    assert [f"m{i}" for i in range(len(ALLOW_ATTACKS)) if (root / f"m{i}").exists()] == []
    assert not (root / ".git" / "hooks" / "pre-commit").exists()
    # every attack and the control file reached the person, who said no
    assert len(editor.prompts) == len(ALLOW_ATTACKS) + 1
