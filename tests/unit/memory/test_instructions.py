"""Which instruction files an ask gets, in what order, and what is left out."""

from __future__ import annotations

from pathlib import Path

from agentls.memory.instructions import InstructionsWire, find_instructions, render_instructions

DEFAULTS = InstructionsWire()


def test_root_to_folder_with_a_fallback_where_no_agents_md(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("root\n")
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "CLAUDE.md").write_text("claude\n")
    (tmp_path / "a" / "b" / "AGENTS.md").write_text("leaf\n")
    (tmp_path / "a" / "b" / "CLAUDE.md").write_text("not used: AGENTS.md is here\n")
    found = find_instructions(tmp_path, tmp_path / "a" / "b", DEFAULTS, None)
    assert [f.shown_as for f in found.files] == ["AGENTS.md", "a/CLAUDE.md", "a/b/AGENTS.md"]
    text = render_instructions(found)
    assert text.index("root") < text.index("claude") < text.index("leaf")
    assert "not used" not in text


def test_copilot_instructions_stand_in_at_the_root(tmp_path: Path) -> None:
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "copilot-instructions.md").write_text("copilot\n")
    found = find_instructions(tmp_path, None, DEFAULTS, None)
    assert [f.shown_as for f in found.files] == [".github/copilot-instructions.md"]


def test_the_users_own_file_comes_first(tmp_path: Path) -> None:
    user = tmp_path / "config"
    user.mkdir()
    (user / "AGENTS.md").write_text("mine\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / "AGENTS.md").write_text("theirs\n")
    found = find_instructions(project, None, DEFAULTS, user)
    assert [f.text for f in found.files] == ["mine\n", "theirs\n"]


def test_binary_undecodable_and_linked_out_files_are_warned_about(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "bin").mkdir(parents=True)
    (root / "bad").mkdir()
    (root / "out").mkdir()
    (root / "bin" / "AGENTS.md").write_bytes(b"\x00\x01ELF")
    (root / "bad" / "AGENTS.md").write_bytes(b"caf\xe9\n")
    secret = tmp_path / "secret.txt"
    secret.write_text("outside the workspace\n")
    (root / "out" / "AGENTS.md").symlink_to(secret)
    for folder, why in (("bin", "binary"), ("bad", "not UTF-8"), ("out", "link out")):
        found = find_instructions(root, root / folder, DEFAULTS, None)
        assert found.files == ()
        assert len(found.warnings) == 1 and why in found.warnings[0]


def test_the_limit_cuts_on_a_line_and_names_what_it_left_out(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("aaaa\nbbbb\ncccc\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "AGENTS.md").write_text("dddd\n")
    found = find_instructions(tmp_path, tmp_path / "sub", InstructionsWire(max_bytes=12), None)
    (first,) = found.files
    assert first.text == "aaaa\nbbbb\n" and first.cut and first.size == 15
    assert found.left_out == ("sub/AGENTS.md",)
    assert "[left out at the 12-byte limit: sub/AGENTS.md]" in render_instructions(found)


def test_secrets_in_an_instruction_file_are_masked(tmp_path: Path) -> None:
    key = "sk-ant-api03-" + "A1b2C3d4E5f6G7h8I9j0" * 3
    (tmp_path / "AGENTS.md").write_text(f"Use the key {key} for tests.\n")
    (found,) = find_instructions(tmp_path, None, DEFAULTS, None).files
    assert key not in found.text


def test_turned_off_reads_nothing(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("root\n")
    assert find_instructions(tmp_path, None, InstructionsWire(enabled=False), None).empty
