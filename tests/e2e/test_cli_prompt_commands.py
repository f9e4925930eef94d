"""Prompt commands through `agentls ask` (a subprocess against the fake Anthropic server):
`/name args` reaches the model as the command file's text with the arguments in place, in
each of the formats read; an unknown name is refused before anything is made; a command's
allowed-tools add a rule only from a trusted file; the log records which file it was."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Cli
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.helpers import write_file

MODEL = ("--model", "anthropic:claude-sonnet-4-5")
TOUCH = ("toolu_1", "run_command", {"command": "touch made"})


def _ask(
    cli: Cli, fake: FakeAnthropic, prompt: str, *extra: str
) -> subprocess.CompletedProcess[str]:
    env = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake.base_url}
    return cli.run("ask", prompt, *MODEL, *extra, env=env)


def _first_prompt(fake: FakeAnthropic) -> str:
    """The user message of the first request, as the real SDK sent it."""
    content = fake.requests[0].body["messages"][0]["content"]
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content)


def _kinds(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["kind"] == kind]


REVIEW = """---
description: Review a file for one concern
argument-hint: FILE CONCERN
---
Review $1 with care for $2.
(asked: $ARGUMENTS; unused: [$3])
"""


def test_a_command_file_reaches_the_model_with_its_arguments(cli: Cli, workspace: Path) -> None:
    review = write_file(workspace / ".agentls" / "commands" / "review.md", REVIEW)
    with FakeAnthropic([turn("Reviewed.")]) as fake:
        proc = _ask(cli, fake, '/review src/app.py "error handling"')
        sent = _first_prompt(fake)
    assert proc.returncode == 0, proc.stderr
    assert sent == (
        "Review src/app.py with care for error handling.\n"
        '(asked: src/app.py "error handling"; unused: [])'
    )
    assert "/review: .agentls/commands/review.md" in proc.stderr
    events = cli.events()
    (used,) = _kinds(events, "prompt_command")
    assert used["name"] == "review" and used["path"] == ".agentls/commands/review.md"
    assert used["sha256"] == hashlib.sha256(review.read_bytes()).hexdigest()
    assert used["arguments"] == 'src/app.py "error handling"' and used["scope"] == "workspace"
    (started,) = _kinds(events, "run_started")
    assert started["prompt"] == '/review src/app.py "error handling"'  # what the person typed
    (message,) = _kinds(events, "user_message")
    assert message["message"]["content"][0]["text"] == sent

    session = cli.session_files()[0].stem
    same = cli.run("replay", session)
    assert same.returncode == 0 and "the same decisions" in same.stdout, same.stdout
    review.write_text(REVIEW.replace("care", "no care"))  # the recorded text is what replays
    changed = cli.run("replay", session)
    assert changed.returncode == 0 and "command files changed since" in changed.stdout


def test_claude_code_commands_and_vscode_prompt_files_work(cli: Cli, workspace: Path) -> None:
    write_file(workspace / ".claude" / "commands" / "git" / "commit.md",
           "Write a commit message for: $ARGUMENTS\n")  # fmt: skip
    write_file(
        workspace / ".github" / "prompts" / "form.prompt.md",
        "---\ndescription: A form\nmode: agent\ntools: ['codebase']\n---\n"
        "Create the form ${input:formName:the form's name} with ${input:fields} in "
        "${workspaceFolderBasename}.\n",
    )
    write_file(workspace / ".claude" / "commands" / "plain.md", "Explain the build.\n")
    with FakeAnthropic([turn("a"), turn("b"), turn("c")]) as fake:
        commit = _ask(cli, fake, "/git:commit the parser fix")
        form = _ask(cli, fake, "/form formName=Login")
        plain = _ask(cli, fake, "/plain quickly please")
        sent = [r.body["messages"][-1]["content"] for r in fake.requests]
    assert commit.returncode == form.returncode == plain.returncode == 0, form.stderr
    texts = ["".join(b["text"] for b in c) if isinstance(c, list) else c for c in sent]
    assert texts[0] == "Write a commit message for: the parser fix"
    # a missing input is left empty; the words typed follow a prompt file, as VS Code sends
    assert texts[1] == f"Create the form Login with  in {workspace.name}.\n\nformName=Login"
    # a body with no placeholder gets the arguments after it
    assert texts[2] == "Explain the build.\n\nARGUMENTS: quickly please"


def test_an_unknown_command_is_refused_before_anything_is_made(cli: Cli, workspace: Path) -> None:
    write_file(workspace / ".agentls" / "commands" / "review.md", REVIEW)
    with FakeAnthropic([]) as fake:
        proc = _ask(cli, fake, "/reveiw src/app.py")
        asked = len(fake.requests)
        escaped = None
        fake.add(turn("It is the temp folder."))
        escaped = _ask(cli, fake, "//tmp is full, why?")
        sent = _first_prompt(fake)
    assert proc.returncode == 2
    assert "unknown command /reveiw" in proc.stderr and "/review" in proc.stderr
    assert asked == 0
    # the refused ask made no session; the escaped one is the only one
    assert escaped.returncode == 0 and len(cli.session_files()) == 1
    assert sent == "/tmp is full, why?"


def _touch_command(path: Path) -> Path:
    return write_file(path, "---\nallowed-tools: Bash(touch:*), WebFetch\n---\nTouch a file.\n")


def test_allowed_tools_add_a_rule_only_once_the_workspace_file_is_approved(
    cli: Cli, workspace: Path
) -> None:
    command = _touch_command(workspace / ".agentls" / "commands" / "touch.md")
    with FakeAnthropic([turn(tool_calls=[TOUCH]), turn("Done.")]) as fake:
        untrusted = _ask(cli, fake, "/touch")
    assert untrusted.returncode == 0, untrusted.stderr
    assert not (workspace / "made").exists()  # nobody to ask: the call was denied
    assert "add no rule until you approve the file: agentls trust" in untrusted.stderr
    events = cli.events()
    (used,) = _kinds(events, "prompt_command")
    assert used["trusted"] is False and used["rules"] == []
    assert _kinds(events, "session_rules") == []
    (denied,) = _kinds(events, "decision")
    assert denied["verdict"] == "deny"

    trusted = cli.run("trust")
    assert trusted.returncode == 0, trusted.stderr
    assert ".agentls/commands/touch.md (/touch), which allows: run_command(touch *)" in (
        trusted.stdout
    )
    for path in cli.session_files():
        path.unlink()
    with FakeAnthropic([turn(tool_calls=[TOUCH]), turn("Done.")]) as fake:
        allowed = _ask(cli, fake, "/touch")
    assert allowed.returncode == 0, allowed.stderr
    assert (workspace / "made").exists()
    assert "allows run_command(touch *)" in allowed.stderr
    assert "'WebFetch' left out: no such tool in agentls" in allowed.stderr
    events = cli.events()
    (rules,) = _kinds(events, "session_rules")
    assert rules["allow"] == ["run_command(touch *)"]
    (decision,) = _kinds(events, "decision")
    assert decision["verdict"] == "allow" and "run_command(touch *)" in decision["source"]
    replayed = cli.run("replay", cli.session_files()[0].stem)
    assert "the same decisions" in replayed.stdout, replayed.stdout

    command.write_text(command.read_text() + "Then rest.\n")  # changed since approved
    (workspace / "made").unlink()
    with FakeAnthropic([turn(tool_calls=[TOUCH]), turn("Done.")]) as fake:
        again = _ask(cli, fake, "/touch")
    assert again.returncode == 0 and not (workspace / "made").exists()
    assert "add no rule until you approve the file" in again.stderr


def test_the_person_s_own_commands_are_trusted_and_the_workspace_s_win(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    config = tmp_path / "config"
    _touch_command(config / "agentls" / "commands" / "touch.md")
    write_file(config / "agentls" / "commands" / "review.md", "The person's own review.\n")
    write_file(workspace / ".agentls" / "commands" / "review.md", "The project's review.\n")
    env = {"XDG_CONFIG_HOME": str(config)}
    with FakeAnthropic([turn(tool_calls=[TOUCH]), turn("Done."), turn("ok")]) as fake:
        touched = cli.run("ask", "/touch", *MODEL, env={**env, **_keys(fake)})
        reviewed = cli.run("ask", "/review", *MODEL, env={**env, **_keys(fake)})
        sent = fake.requests[-1].body["messages"][0]["content"]
    assert touched.returncode == 0, touched.stderr
    assert (workspace / "made").exists()
    assert reviewed.returncode == 0
    assert "".join(b["text"] for b in sent) == "The project's review."
    doctor = cli.run("doctor", "--json", env={**env, **_keys(fake)})
    commands = {c["name"]: c for c in json.loads(doctor.stdout)["commands"]["commands"]}
    assert commands["review"]["path"] == ".agentls/commands/review.md"
    assert commands["review"]["shadows"] == [str(config / "agentls" / "commands" / "review.md")]
    assert commands["touch"]["scope"] == "user" and commands["touch"]["trusted"] is True
    assert commands["touch"]["rules"] == ["run_command(touch *)"]


def _keys(fake: FakeAnthropic) -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake.base_url}


def test_the_doctor_lists_commands_and_the_files_it_skipped(cli: Cli, workspace: Path) -> None:
    folder = workspace / ".agentls" / "commands"
    write_file(folder / "review.md", REVIEW)
    write_file(folder / "latin1.md", "Caf\xe9 au lait\n".encode("latin-1"))
    write_file(folder / "huge.md", "x" * (64 * 1024 + 1))
    write_file(folder / "broken.md", "---\ndescription: 'never closed\n---\nBody\n")
    write_file(folder / "unclosed.md", "---\ndescription: no end\nBody\n")
    write_file(folder / "undo.md", "Not the built-in.\n")
    proc = cli.run("doctor", "--json", env={"ANTHROPIC_API_KEY": "k"})
    report = json.loads(proc.stdout)
    assert [c["name"] for c in report["commands"]["commands"]] == ["review"]
    assert report["commands"]["commands"][0]["inputHint"] == "FILE CONCERN"
    problems = "\n".join(report["commands"]["problems"])
    assert ".agentls/commands/latin1.md: not UTF-8 text" in problems
    assert ".agentls/commands/huge.md: 65537 bytes, more than the 65536" in problems
    assert ".agentls/commands/broken.md: broken frontmatter (line 2: a quoted value" in problems
    assert ".agentls/commands/unclosed.md: broken frontmatter" in problems
    assert ".agentls/commands/undo.md: /undo is a built-in command" in problems
    assert any(w.startswith("command file .agentls/commands/latin1.md") for w in report["warnings"])
    text = cli.run("doctor", env={"ANTHROPIC_API_KEY": "k"}).stdout
    assert re.search(r"^commands +/review$", text, re.M), text
    assert re.search(r"^  /review +\.agentls/commands/review\.md$", text, re.M), text
    with FakeAnthropic([turn("ok")]) as fake:  # the good file still works beside the bad ones
        proc = _ask(cli, fake, "/review a.py b")
        assert _first_prompt(fake).startswith("Review a.py with care for b.")
    assert proc.returncode == 0
