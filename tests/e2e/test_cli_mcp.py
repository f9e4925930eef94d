"""MCP servers through `agentls ask` and `agentls mcp list`, as a person runs them: a real
MCP server (tests/fakes/mcp_server.py, the SDK's own) and the scripted model."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Cli
from tests.e2e.terminal import TerminalRun
from tests.fakes.mcp_server import stdio_config
from tests.helpers import script, wait_until

ADD = {"name": "mcp__test__add", "input": {"a": 2, "b": 3}}


def configure(cli: Cli, servers: dict[str, Any], **more: Any) -> Path:
    """The person's own settings file (trusted), naming these servers."""
    path = Path(cli.env["XDG_CONFIG_HOME"]) / "agentls" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"mcpServers": servers, **more}))
    return path


def observations(cli: Cli) -> list[dict[str, Any]]:
    return [e for e in cli.events() if e["kind"] == "observation"]


def decisions(cli: Cli) -> list[dict[str, Any]]:
    return [e for e in cli.events() if e["kind"] == "decision"]


def test_a_call_approved_at_the_terminal(cli: Cli, workspace: Path, tmp_path: Path) -> None:
    configure(cli, {"test": stdio_config()})
    model = script(tmp_path, [
        {"expect": {"toolsInclude": ["mcp__test__add", "read_file"]}, "toolCalls": [ADD]},
        {"expect": {"lastToolResultContains": "the sum is 5"}, "text": "It is 5."},
    ])  # fmt: skip
    with TerminalRun(["ask", "add", "--model", model], workspace, cli.env) as run:
        wait_until(lambda: run.count("Allow?") == 1, what="the question")
        assert run.count('agentls wants to mcp__test__add: mcp__test__add {"a":2,"b":3}') == 1
        assert run.count("MCP server 'test'") == 1  # the detail names the server
        assert run.count("Always would add: mcp__test__add") == 1
        run.type("y\n")
        assert run.wait() == 0
    assert decisions(cli)[0]["verdict"] == "allow"
    assert "answered allow_once" in decisions(cli)[0]["source"]
    (seen,) = observations(cli)
    assert seen["ok"] and seen["content"] == "the sum is 5" and seen["meta"]["mcpServer"] == "test"


def test_yes_approves_but_never_a_deny_rule(cli: Cli, tmp_path: Path) -> None:
    configure(cli, {"test": stdio_config()})
    allowed = script(tmp_path, [
        {"toolCalls": [ADD]},
        {"expect": {"lastToolResultContains": "the sum is 5"}, "text": "5"},
    ])  # fmt: skip
    proc = cli.run("ask", "add", "--model", allowed, "--yes")
    assert proc.returncode == 0, proc.stderr
    assert "✓ mcp__test__add" in proc.stderr
    denied = script(tmp_path, [
        {"toolCalls": [ADD]},
        {"expect": {"lastToolResultContains": "denied by deny rule mcp__test__*"}, "text": "no"},
    ], "denied.json")  # fmt: skip
    proc = cli.run("ask", "add", "--model", denied, "--yes", "--deny", "mcp__test__*")
    assert proc.returncode == 0, proc.stderr


def test_no_terminal_and_no_yes_means_denied_and_the_model_is_told(
    cli: Cli, tmp_path: Path
) -> None:
    configure(cli, {"test": stdio_config()})
    model = script(tmp_path, [
        {"toolCalls": [ADD]},
        {"expect": {"lastToolResultContains": "the user denied this call (no one to ask"},
         "text": "I was not allowed."},
    ])  # fmt: skip
    proc = cli.run("ask", "add", "--model", model)
    assert proc.returncode == 0, proc.stderr
    assert "I was not allowed." in proc.stdout
    (decision,) = decisions(cli)
    assert decision["verdict"] == "deny" and "external tools need approval" in decision["source"]


def test_a_rule_allows_a_call(cli: Cli, tmp_path: Path) -> None:
    configure(cli, {"test": stdio_config()})
    model = script(tmp_path, [
        {"toolCalls": [ADD, {"name": "mcp__test__echo", "input": {"text": "hello"}}]},
        {"expect": {"lastToolResultContains": "the user denied"}, "text": "done"},
    ])  # fmt: skip
    proc = cli.run("ask", "add", "--model", model, "--allow", "mcp__test__add")
    assert proc.returncode == 0, proc.stderr
    added, echoed = observations(cli)
    assert added["ok"] and added["content"] == "the sum is 5"
    assert echoed["error"] == "permission_denied"  # no rule for echo, and no one to ask
    assert decisions(cli)[0]["source"] == "allow rule mcp__test__add"


def test_a_session_with_mcp_calls_replays_with_the_same_decisions(cli: Cli, tmp_path: Path) -> None:
    configure(cli, {"test": {**stdio_config(), "subjectArgument": "text"}})
    model = script(tmp_path, [
        {"toolCalls": [ADD, {"name": "mcp__test__echo", "input": {"text": "hello"}},
                       {"name": "mcp__test__echo", "input": {"text": "other"}},
                       {"name": "mcp__test__nothing", "input": {}}]},
        {"expect": {"lastToolResultContains": "the user denied"}, "text": "done"},
    ])  # fmt: skip
    proc = cli.run("ask", "add", "--model", model,
                   "--allow", "mcp__test__add", "--allow", "mcp__test__echo(hello)")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert [o.get("error") for o in observations(cli)] == [
        None, None, "permission_denied", "not_found"
    ]  # fmt: skip
    path = cli.session_files()[0]
    same = cli.run("replay", path.stem)
    assert same.returncode == 0, same.stdout + same.stderr
    assert "same decisions" in same.stdout and "4 tool call" in same.stdout

    # Without its subject argument the echo rule no longer covers the call: a divergence.
    events = [json.loads(line) for line in path.read_text().splitlines()]
    for event in events:
        if event["kind"] == "run_started":
            del event["settings"]["mcpServers"]["test"]["subjectArgument"]
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    diverged = cli.run("replay", path.stem)
    assert diverged.returncode == 1, diverged.stdout + diverged.stderr
    assert "first divergence" in diverged.stdout


def test_a_crash_is_a_clear_error_restarted_once_then_left_out(cli: Cli, tmp_path: Path) -> None:
    marker = tmp_path / "starts.txt"
    configure(cli, {"test": stdio_config(env={"MCP_FAKE_MARKER": str(marker)})})
    crash = {"name": "mcp__test__crash", "input": {}}
    pid = {"name": "mcp__test__pid", "input": {}}
    model = script(tmp_path, [
        {"toolCalls": [pid]},
        {"toolCalls": [crash]},
        {"expect": {"lastToolResultContains": "crashed while running crash"}, "toolCalls": [pid]},
        {"toolCalls": [crash]},
        {"expect": {"lastToolResultContains": "restarted once already"}, "toolCalls": [ADD]},
        {"expect": {"lastToolResultContains": "is not running"}, "text": "It broke."},
    ])  # fmt: skip
    proc = cli.run("ask", "crash", "--model", model, "--yes")
    assert proc.returncode == 0, proc.stderr
    assert "MCP server 'test' crashed while running crash; restarting it." in proc.stderr
    assert "crashed again while running crash" in proc.stderr
    first, crashed, second, again, refused = observations(cli)
    assert first["ok"] and second["ok"] and first["content"] != second["content"]  # new process
    assert crashed["error"] == "execution_failed" and crashed["retryable"]
    assert "crashing on purpose" in crashed["content"]  # the server's stderr, for the model too
    assert again["error"] == "execution_failed" and not again["retryable"]
    assert refused["error"] == "execution_failed"
    assert len(marker.read_text().splitlines()) == 2  # started, restarted once, no more


def test_a_call_that_never_answers_times_out_and_the_run_goes_on(cli: Cli, tmp_path: Path) -> None:
    configure(cli, {"test": stdio_config(callTimeoutSeconds=1)})
    model = script(tmp_path, [
        {"toolCalls": [{"name": "mcp__test__hang", "input": {}}]},
        {"expect": {"lastToolResultContains": "did not answer within 1 s"}, "toolCalls": [ADD]},
        {"expect": {"lastToolResultContains": "the sum is 5"}, "text": "went on"},
    ])  # fmt: skip
    started = time.monotonic()
    proc = cli.run("ask", "hang", "--model", model, "--yes", timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < 30
    hung, added = observations(cli)
    assert hung["error"] == "timeout" and hung["retryable"] and added["ok"]


def test_a_megabyte_of_output_is_bounded_with_a_note(cli: Cli, tmp_path: Path) -> None:
    configure(cli, {"test": stdio_config()})
    model = script(tmp_path, [
        {"toolCalls": [{"name": "mcp__test__big", "input": {}}]},
        {"expect": {"lastToolResultContains": "characters not shown"}, "text": "long"},
    ])  # fmt: skip
    proc = cli.run("ask", "big", "--model", model, "--allow", "mcp__test__big")
    assert proc.returncode == 0, proc.stderr
    (big,) = observations(cli)
    assert len(big["content"]) <= 30_200 and big["meta"]["cutCharacters"] > 990_000
    assert big["content"].startswith("BEGIN\nline 000000") and big["content"].endswith("END")


def test_a_broken_server_is_reported_and_built_in_tools_work(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    configure(cli, {"broken": {"command": "agentls-no-such-server"}})
    (workspace / "notes.txt").write_text("still here\n")
    model = script(tmp_path, [
        {"expect": {"toolsInclude": ["read_file"]},
         "toolCalls": [{"name": "read_file", "input": {"path": "notes.txt"}}]},
        {"expect": {"lastToolResultContains": "still here"}, "text": "read it"},
    ])  # fmt: skip
    proc = cli.run("ask", "read", "--model", model)
    assert proc.returncode == 0, proc.stderr
    assert (
        "agentls: MCP server 'broken' failed to start: cannot run `agentls-no-such-server`: "
        "No such file or directory. Its tools are left out; everything else works on."
    ) in proc.stderr


def test_mcp_list_shows_servers_status_and_tools(cli: Cli, workspace: Path) -> None:
    configure(cli, {"test": stdio_config(), "broken": {"command": "agentls-no-such-server"},
                    "off": {"disabled": True}})  # fmt: skip
    proc = cli.run("mcp", "list")
    assert proc.returncode == 1, proc.stderr  # a server failed
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("test (stdio: ") and lines[0].endswith(
        "mcp_server.py): ready, 8 tools"
    )
    assert any(line.split() == ["mcp__test__add", "read-only", "Add", "two", "integers."]
               for line in lines)  # fmt: skip
    assert "broken (stdio: agentls-no-such-server): failed" in lines
    assert "  cannot run `agentls-no-such-server`: No such file or directory" in lines
    assert "off: disabled" in lines
    listed = json.loads(cli.run("mcp", "list", "--json", "--workspace", str(workspace)).stdout)
    by_name = {s["name"]: s for s in listed}
    assert by_name["test"]["status"] == "ready" and by_name["broken"]["status"] == "failed"
    assert {t["name"] for t in by_name["test"]["tools"]} >= {"mcp__test__add", "mcp__test__hang"}
    configure(cli, {"test": stdio_config()})
    assert cli.run("mcp", "list").returncode == 0
    configure(cli, {})
    none = cli.run("mcp", "list")
    assert none.returncode == 0 and "No MCP servers are configured" in none.stdout
    configure(cli, {"bad name": {"command": "x"}})
    bad = cli.run("mcp", "list")
    assert bad.returncode == 2 and "server name 'bad name'" in bad.stderr


def test_an_unapproved_workspace_file_starts_no_server(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "starts.txt"
    settings = workspace / ".agentls" / "settings.json"
    settings.parent.mkdir()
    server = stdio_config(env={"MCP_FAKE_MARKER": str(marker)})
    settings.write_text(json.dumps({"mcpServers": {"test": server}}))
    model = script(tmp_path, [{"expect": {"toolsExclude": ["mcp__test__add"]}, "text": "none"}])
    first = cli.run("ask", "hi", "--model", model)
    assert first.returncode == 0, first.stderr
    assert "ignoring mcpServers until you approve this file" in first.stderr
    assert not marker.exists()
    listed = cli.run("mcp", "list")
    assert "No MCP servers are configured" in listed.stdout and "ignoring" in listed.stderr
    assert not marker.exists()
    assert cli.run("trust").returncode == 0
    model = script(tmp_path, [{"expect": {"toolsInclude": ["mcp__test__add"]}, "text": "now"}],
                   "trusted.json")  # fmt: skip
    trusted = cli.run("ask", "hi", "--model", model)
    assert trusted.returncode == 0, trusted.stderr
    assert marker.exists() and "ignoring" not in trusted.stderr
