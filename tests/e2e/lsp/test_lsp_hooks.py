"""Hooks in the language server (pytest-lsp as the editor, real shell scripts as hooks):
the runtime fires them whatever the face, and what a hook tells the person reaches the
editor as an `agentls/event` and a message."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.lsp.conftest import EditorFactory
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.helpers import hook_script, hooks, tool_result_text

MODEL = "anthropic:claude-sonnet-4-5"


async def test_a_pre_tool_use_hook_blocks_a_command_the_rules_allow(
    open_editor: EditorFactory, fake: FakeAnthropic, root: Path, tmp_path: Path
) -> None:
    guard = hook_script(
        tmp_path,
        "guard.sh",
        """grep -q 'git push' || exit 0
echo 'pushing is for people' >&2; exit 2\n""",
    )
    options = {
        "model": MODEL,
        "hooks": hooks("PreToolUse", guard, "Bash"),
        "permissions": {"allow": ["run_command(touch *)", "run_command(git push *)"]},
    }
    editor = await open_editor(init_options=options)
    push = ("toolu_1", "run_command", {"command": "touch pushed.txt && git push"})
    fake.add(turn("Pushing.", tool_calls=[push]), turn("Stopped."))
    result = await editor.ask("push it", wait=True)
    assert result["terminalReason"] == "completed"
    assert not (root / "pushed.txt").exists()
    assert tool_result_text(fake, 1).endswith("pushing is for people")
    assert editor.prompts == []  # the rules allowed it: nobody was asked, the hook said no


async def test_a_failing_hook_is_shown_in_the_editor_and_a_formatter_changes_the_file(
    open_editor: EditorFactory, fake: FakeAnthropic, root: Path, tmp_path: Path
) -> None:
    formatter = hook_script(
        tmp_path,
        "fmt.sh",
        """sed -i 's/=/ = /' "$CLAUDE_PROJECT_DIR/app.py"
echo '{"systemMessage": "app.py formatted"}'\n""",
    )
    broken = hook_script(tmp_path, "broken.sh", "echo 'jq: command not found' >&2; exit 127\n")
    options = {"model": MODEL, "mode": "accept-edits",
               "hooks": {"PostToolUse": [{"matcher": "write_file", "hooks": [
                   {"type": "command", "command": formatter},
                   {"type": "command", "command": broken}]}]}}  # fmt: skip
    editor = await open_editor(init_options=options)
    write = ("toolu_1", "write_file", {"path": "app.py", "content": "x=1\n"})
    fake.add(turn("Writing.", tool_calls=[write]), turn("Written."))
    result = await editor.ask("write app.py", wait=True)
    assert result["terminalReason"] == "completed"
    assert (root / "app.py").read_text() == "x = 1\n"
    assert "A PostToolUse hook changed app.py after write_file wrote it" in tool_result_text(
        fake, 1
    )
    notices = {e["command"]: e for e in editor.events if e["kind"] == "hook"}
    assert notices[broken]["error"] and notices[broken]["event"] == "PostToolUse"
    assert notices[broken]["text"] == "exited with 127: jq: command not found; the run goes on"
    assert not notices[formatter]["error"] and notices[formatter]["text"] == "app.py formatted"
    shown = await editor.wait_for_message(f"PostToolUse hook `{broken}`")
    assert "exited with 127" in shown
