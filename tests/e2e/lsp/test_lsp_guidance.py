"""Instruction files and memory in the language server: the run's first progress says
which files (and how many memories) it was given, the model is sent them, and
`agentls.memory` lists, adds and forgets on the store every face shares."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.e2e.lsp.editor import Editor
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.helpers import system_text


async def test_the_first_progress_says_which_instruction_files_and_memories_were_used(
    editor: Editor, fake: FakeAnthropic, root: Path
) -> None:
    (root / "AGENTS.md").write_text("Run pnpm test.\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "CLAUDE.md").write_text("Keep functions short.\n")
    (root / "other").mkdir()
    (root / "other" / "AGENTS.md").write_text("NOT ON THE WAY DOWN\n")
    uri = editor.open("pkg/mod.py", "X = 1\n")
    added = await editor.command(
        "agentls.memory", {"action": "add", "uri": uri, "text": "Releases are tagged vX.Y."}
    )
    assert added["changed"] and [m["content"] for m in added["memories"]] == [
        "Releases are tagged vX.Y."]  # fmt: skip
    fake.add(turn("Done."))
    result = await editor.ask("tidy mod.py", wait=True, uri=uri)
    assert result["terminalReason"] == "completed"
    reports = await editor.wait_progress_end()
    assert reports[0].kind == "begin"
    assert reports[0].message == (
        "tidy mod.py · instructions: AGENTS.md (15 B), pkg/CLAUDE.md (22 B); memories: 1"
    )
    system = system_text(fake.requests[0].body)
    assert "Run pnpm test." in system and "Keep functions short." in system
    assert "Releases are tagged vX.Y." in system and "NOT ON THE WAY DOWN" not in system


async def test_memory_lists_and_forgets_what_the_command_line_kept(
    editor: Editor, root: Path, isolated_state: Path
) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "agentls", "memory", *args], cwd=root,
                              capture_output=True, text=True, timeout=60)  # fmt: skip

    kept = [cli("add", fact).stdout.split()[1] for fact in ("Use pnpm.", "Tag releases.")]
    uri = editor.open("mod.py", "X = 1\n")
    listed = await editor.command("agentls.memory", {"uri": uri})
    assert [m["id"] for m in listed["memories"]] == kept
    assert listed["memories"][0]["source"] == "explicit_user_rule"
    assert "Use pnpm." in listed["memories"][0]["line"]
    forgot = await editor.command("agentls.memory", {"action": "forget", "uri": uri, "id": kept[0]})
    assert forgot["changed"] == kept[0]
    assert [m["id"] for m in forgot["memories"]] == kept[1:]
    left = json.loads(cli("list", "--json").stdout)
    assert [m["id"] for m in left] == kept[1:]  # gone from the store the CLI reads
