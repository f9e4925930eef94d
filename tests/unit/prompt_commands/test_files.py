"""Finding command files: the folders, their order, namespaces, trust, and what is skipped."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from agentls.prompt_commands.catalog import CommandCatalog, UnknownPromptCommand
from agentls.prompt_commands.files import MAX_BYTES, MAX_FILES, find_commands
from tests.helpers import write_file

KNOWN = ("read_file", "run_command", "edit_file")


def find(root: Path | None, user: Path, approved: set[str] | None = None) -> CommandCatalog:
    def is_approved(path: Path, digest: str) -> bool:
        return approved is not None and f"{path.name}:{digest}" in approved

    return find_commands(root, user, approved=is_approved, known_tools=KNOWN)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def user(tmp_path: Path) -> Path:
    return tmp_path / "config" / "agentls"


def test_every_folder_and_the_first_found_wins(root: Path, user: Path) -> None:
    write_file(root / ".agentls/commands/review.md", "agentls review")
    write_file(root / ".claude/commands/review.md", "claude review")
    write_file(root / ".claude/commands/fe/component.md", "component $1")
    write_file(root / ".github/prompts/review.prompt.md", "prompt-file review")
    write_file(root / ".github/prompts/form.prompt.md", "form")
    write_file(root / ".github/prompts/notes.md", "not a prompt file")
    write_file(user / "commands/review.md", "my review")
    write_file(user / "commands/mine.md", "mine")
    catalog = find(root, user)
    assert catalog.names == ["fe:component", "form", "mine", "review"]
    review = catalog.get("review")
    assert review is not None and review.body == "agentls review"
    assert review.shadows == (
        ".claude/commands/review.md", ".github/prompts/review.prompt.md",
        str(user / "commands/review.md"),
    )  # fmt: skip
    mine = catalog.get("mine")
    assert mine is not None and mine.scope == "user" and mine.trusted
    assert mine.shown_as == str(user / "commands/mine.md")
    form = catalog.get("form")
    assert form is not None and form.form == "prompt-file" and form.scope == "workspace"
    assert catalog.problems == ()


def test_without_a_workspace_only_the_person_s_own(user: Path) -> None:
    write_file(user / "commands/mine.md", "mine")
    assert find(None, user).names == ["mine"]


def test_descriptions_hints_and_notes(root: Path, user: Path) -> None:
    write_file(
        root / ".agentls/commands/a.md", "---\ndescription: Does A\nargument-hint: X\n---\nA $1"
    )
    write_file(root / ".agentls/commands/b.md", "\n# Heading of B\n\nmore")
    write_file(root / ".agentls/commands/c.md", "---\nmodel: opus\n---\nfixed text")
    write_file(root / ".github/prompts/d.prompt.md", "---\nname: renamed\n---\nD ${input:x}")
    catalog = find(root, user)
    a, b, c, d = (catalog.get(n) for n in ("a", "b", "c", "renamed"))
    assert a is not None and (a.description, a.argument_hint, a.input_hint) == ("Does A", "X", "X")
    assert b is not None and (b.description, b.input_hint) == (
        "Heading of B",
        "(optional) more words",
    )
    assert c is not None and c.notes == (
        "/c: model 'opus' not used: the session keeps its own model",
    )
    assert d is not None and d.input_hint == "arguments" and catalog.get("d") is None


def test_allowed_tools_become_rules_only_from_a_trusted_file(root: Path, user: Path) -> None:
    text = "---\nallowed-tools: Bash(git diff:*), WebSearch\n---\nReview"
    path = write_file(root / ".agentls/commands/review.md", text)
    untrusted = find(root, user).get("review")
    assert untrusted is not None and not untrusted.trusted and untrusted.rules == ()
    assert [str(r) for r in untrusted.requested_rules] == ["run_command(git diff *)"]
    assert any("until you approve the file: agentls trust" in n for n in untrusted.notes)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    trusted = find(root, user, {f"review.md:{digest}"}).get("review")
    assert trusted is not None and trusted.trusted
    assert [str(r) for r in trusted.rules] == ["run_command(git diff *)"]
    assert trusted.notes == (
        "/review: allowed-tools 'WebSearch' left out: no such tool in agentls",
    )
    # a prompt file's `tools` are VS Code's tool picks, never permissions
    write_file(root / ".github/prompts/p.prompt.md", "---\ntools: ['run_command']\n---\nP")
    prompt_file = find(root, user).get("p")
    assert prompt_file is not None and prompt_file.requested_rules == () and prompt_file.notes == ()


def test_bad_files_are_skipped_with_a_note(root: Path, user: Path) -> None:
    folder = root / ".agentls/commands"
    write_file(folder / "good.md", "fine")
    write_file(folder / "latin.md", "caf\xe9".encode("latin-1"))
    write_file(folder / "nul.md", b"a\0b")
    write_file(folder / "big.md", "x" * (MAX_BYTES + 1))
    write_file(folder / "broken.md", "---\ndescription: [a\n---\nx")
    write_file(folder / "empty.md", "---\ndescription: nothing\n---\n\n")
    write_file(folder / "compact.md", "mine")
    write_file(folder / "bad name!.md", "x")
    write_file(folder / ".hidden.md", "x")
    catalog = find(root, user)
    assert catalog.names == ["good"]
    problems = "\n".join(catalog.problems)
    for expected in (
        ".agentls/commands/latin.md: not UTF-8 text",
        ".agentls/commands/nul.md: a binary file",
        f".agentls/commands/big.md: {MAX_BYTES + 1} bytes",
        ".agentls/commands/broken.md: broken frontmatter (line 2: a list that is not closed",
        ".agentls/commands/empty.md: no text after its frontmatter",
        ".agentls/commands/compact.md: /compact is a built-in command",
        ".agentls/commands/bad name!.md: 'bad name!' cannot be part of a command name",
    ):
        assert expected in problems
    assert "hidden" not in problems


def test_a_link_out_of_the_workspace_is_not_read(root: Path, user: Path, tmp_path: Path) -> None:
    outside = write_file(tmp_path / "elsewhere" / "secret.md", "outside text")
    write_file(tmp_path / "elsewhere" / "commands" / "other.md", "outside too")
    folder = root / ".agentls" / "commands"
    folder.mkdir(parents=True)
    os.symlink(outside, folder / "leak.md")
    os.symlink(tmp_path / "elsewhere", root / ".claude")  # .claude/commands is outside
    catalog = find(root, user)
    assert catalog.names == []
    assert catalog.problems == (
        ".agentls/commands/leak.md: a link out of the workspace, not read",
        ".claude/commands: a link out of the workspace, not read",
    )


def test_a_crowded_folder_is_read_up_to_its_bound(root: Path, user: Path) -> None:
    for index in range(MAX_FILES + 3):
        write_file(root / f".agentls/commands/c{index:03}.md", "x")
    catalog = find(root, user)
    assert len(catalog.names) == MAX_FILES
    assert f".agentls/commands: more than {MAX_FILES} files; the rest not read" in catalog.problems


def test_a_prompt_is_expanded_or_named_unknown_with_those_there(root: Path, user: Path) -> None:
    write_file(root / ".agentls/commands/review.md", "Review $1")
    catalog = find(root, user)
    asked = catalog.prompt("/review a.py", root)
    assert asked.text == "Review a.py" and asked.command is not None
    assert asked.command.invocation == "/review a.py"
    assert asked.lines() == ["/review: .agentls/commands/review.md"]
    assert catalog.prompt("plain words", root).command is None
    assert catalog.prompt("//review", root).text == "/review"
    with pytest.raises(UnknownPromptCommand, match=r"unknown command /nope: .* /review \(") as e:
        catalog.prompt("/nope", root)
    assert e.value.known == ["review"]
