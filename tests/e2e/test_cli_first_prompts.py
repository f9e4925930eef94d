"""`agentls ask` as a subprocess against the fake Anthropic server, on the
four prompts people try first."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Cli
from tests.fakes.anthropic_server import FakeAnthropic, turn


def ask(
    cli: Cli, fake: FakeAnthropic, prompt: str, *extra: str
) -> subprocess.CompletedProcess[str]:
    env = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake.base_url}
    return cli.run("ask", prompt, "--model", "anthropic:claude-sonnet-4-5", *extra, env=env)


def tool_results(request_body: dict[str, Any]) -> list[dict[str, Any]]:
    last = request_body["messages"][-1]
    return [b for b in last["content"] if b["type"] == "tool_result"]


def result_text(block: dict[str, Any]) -> str:
    content = block["content"]
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content)


def test_create_hello_py_and_run_it(cli: Cli, workspace: Path) -> None:
    write = ("toolu_1", "write_file", {"path": "hello.py", "content": 'print("hello")\n'})
    run = ("toolu_2", "run_command", {"command": "python3 hello.py"})
    replies = [
        turn("I'll create it.", tool_calls=[write]),
        turn("Now run it.", tool_calls=[run]),
        turn("Created hello.py; running it prints hello."),
    ]
    with FakeAnthropic(replies) as fake:
        proc = ask(cli, fake, "create hello.py that prints hello and run it", "--yes")
        requests = [r.body for r in fake.requests]
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "hello.py").read_text() == 'print("hello")\n'
    ran = result_text(tool_results(requests[2])[0])
    assert "hello" in ran and "[exit code 0]" in ran
    assert "Created hello.py; running it prints hello." in proc.stdout
    assert "[completed" in proc.stderr
    assert requests[0]["messages"][0]["content"][0]["text"].startswith("create hello.py")
    assert {t["name"] for t in requests[0]["tools"]} == {
        "read_file", "list_files", "search", "edit_file", "write_file", "run_command",
        "process_output", "process_stop", "problems", "definition", "references", "symbols",
        "rename", "remember", "update_plan"}  # fmt: skip


def test_list_the_python_files(cli: Cli, workspace: Path) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    (workspace / "pkg").mkdir()
    (workspace / "pkg" / "b.py").write_text("y = 2\n")
    (workspace / "build").mkdir()
    (workspace / "build" / "gen.py").write_text("z = 3\n")
    (workspace / ".gitignore").write_text("build/\n")
    (workspace / "notes.txt").write_text("not python\n")
    replies = [
        turn(tool_calls=[("toolu_1", "list_files", {"pattern": "**/*.py"})]),
        turn("The Python files are a.py and pkg/b.py."),
    ]
    with FakeAnthropic(replies) as fake:
        proc = ask(cli, fake, "list the Python files here")
        listing = result_text(tool_results(fake.requests[1].body)[0])
    assert proc.returncode == 0, proc.stderr
    assert "a.py" in listing and "pkg/b.py" in listing
    assert "gen.py" not in listing and "notes.txt" not in listing
    assert "a.py and pkg/b.py" in proc.stdout


def test_what_is_the_git_branch(cli: Cli, workspace: Path) -> None:
    subprocess.run(["git", "init", "-q", "-b", "feature-x"], cwd=workspace, check=True)
    replies = [
        turn(tool_calls=[("toolu_1", "run_command", {"command": "git branch --show-current"})]),
        turn("You are on feature-x."),
    ]
    with FakeAnthropic(replies) as fake:
        proc = ask(cli, fake, "what is the git branch", "--json", "--yes")
        output = result_text(tool_results(fake.requests[1].body)[0])
    assert proc.returncode == 0, proc.stderr
    assert "feature-x" in output
    result = json.loads(proc.stdout)
    assert result["terminalReason"] == "completed"
    assert result["text"] == "You are on feature-x."
    assert result["usage"]["inputTokens"] > 0 and result["usage"]["costUsd"] > 0
    assert result["sessionId"] == cli.session_files()[0].stem


def test_make_a_directory_with_three_files(cli: Cli, workspace: Path) -> None:
    calls = [
        (f"toolu_{i}", "write_file", {"path": f"notes/file{i}.txt", "content": f"note {i}\n"})
        for i in range(1, 4)
    ]
    replies = [turn("Creating three files.", tool_calls=calls), turn("Made notes/ with 3 files.")]
    with FakeAnthropic(replies) as fake:
        proc = ask(cli, fake, "make a directory with three files in it", "--yes")
        results = tool_results(fake.requests[1].body)
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (workspace / "notes").iterdir()) == [
        "file1.txt", "file2.txt", "file3.txt"]  # fmt: skip
    assert [r["tool_use_id"] for r in results] == ["toolu_1", "toolu_2", "toolu_3"]
    assert not any(r.get("is_error") for r in results)


def test_without_a_tty_or_yes_commands_are_denied_and_the_model_is_told(
    cli: Cli, workspace: Path
) -> None:
    replies = [
        turn(tool_calls=[("toolu_1", "run_command", {"command": "touch made-it"})]),
        turn("I was not allowed to run it."),
    ]
    with FakeAnthropic(replies) as fake:
        proc = ask(cli, fake, "touch a file")
        denial = tool_results(fake.requests[1].body)[0]
    assert proc.returncode == 0, proc.stderr
    assert not (workspace / "made-it").exists()
    assert denial["is_error"] is True
    assert "denied" in result_text(denial) and "--yes" in result_text(denial)


def test_missing_api_key_is_a_clear_error_before_any_work(cli: Cli) -> None:
    proc = cli.run("ask", "hello", "--model", "anthropic:claude-sonnet-4-5")
    assert proc.returncode == 2
    assert "ANTHROPIC_API_KEY" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert cli.session_files() == []


def test_a_missing_session_is_worded_once_by_every_command(cli: Cli) -> None:
    missing = "20990101-000000-abcdef"
    wording = f"agentls: no session '{missing}' in {cli.state / 'sessions'}\n"
    for args in (
        ["ask", "x", "--session", missing, "--model", "scripted:demo"],
        ["show", missing],
        ["undo", missing],
        ["replay", missing],
    ):
        proc = cli.run(*args)
        assert (proc.returncode, proc.stderr) == (2, wording), args
    assert cli.session_files() == []


def test_bad_flags_and_settings_exit_2(cli: Cli, workspace: Path) -> None:
    for args in (
        ["ask", "x", "--max-turns", "0", "--model", "scripted:demo"],
        ["ask", "x", "--model", "nonsense"],
        ["ask", "x", "--model", "openai2:gpt"],
        ["ask", "x", "--workspace", str(workspace / "missing"), "--model", "scripted:demo"],
        ["ask", "x", "--model", "scripted:/no/such/script.json"],
        ["ask", "x", "--session", "../../etc", "--model", "scripted:demo"],
        ["ask", "x", "--session", "20990101-000000-abcdef", "--model", "scripted:demo"],
        ["show", "20990101-000000-abcdef"],
        ["frobnicate"],
    ):
        proc = cli.run(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr, (args, proc.stderr)
        assert proc.stderr.strip(), args
