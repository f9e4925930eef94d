"""Background processes through `agentls ask`: a scripted model starts `python3 -m
http.server` in the background, fetches a page from it with a second command (the
session's commands share one loopback network), reads the server's log and stops it.
Nothing of the session is left after the ask, after a cancel, or after kill -9 of
agentls; a deny rule holds for a background command as for any other."""

from __future__ import annotations

import json
import secrets
import signal
import socket
from pathlib import Path
from typing import Any

import pytest

from agentls.workspace import sandbox
from tests import helpers
from tests.e2e.conftest import Cli
from tests.helpers import free_port, wait_until
from tests.processes import processes_naming

needs_bwrap = pytest.mark.skipif(
    sandbox.bwrap_problem() is not None, reason=f"no sandbox here: {sandbox.bwrap_problem()}"
)
PAGE = "<h1>the page served</h1>\n"
FETCH = """\
import sys, time, urllib.request
for _ in range(600):  # until the server listens: it started in the background
    try:
        body = urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/page.html").read()
        break
    except OSError:
        time.sleep(0.05)
else:
    sys.exit("the server never answered")
open("fetched.txt", "wb").write(body)
"""


class Site:
    """A workspace with a page to serve (in a folder named by a token) and the fetcher."""

    def __init__(self, workspace: Path, port: int) -> None:
        self.token = f"site-{secrets.token_hex(4)}"
        self.port = port
        (workspace / self.token).mkdir()
        (workspace / self.token / "page.html").write_text(PAGE)
        (workspace / "fetch.py").write_text(FETCH)
        self.serve = f"python3 -u -m http.server {port} --bind 127.0.0.1 --directory {self.token}"
        self.fetch = f"python3 fetch.py {port}"

    def start(self) -> dict[str, Any]:
        command = {"command": self.serve, "background": True}
        return {"toolCalls": [{"name": "run_command", "input": command}]}

    def fetched(self) -> dict[str, Any]:
        return {"toolCalls": [{"name": "run_command", "input": {"command": self.fetch}}]}


def script(tmp_path: Path, *turns: dict[str, Any]) -> str:
    return helpers.script(tmp_path, list(turns), f"script-{secrets.token_hex(3)}.json")


def call(name: str, expect: str | None = None, **given: Any) -> dict[str, Any]:
    turn: dict[str, Any] = {"toolCalls": [{"name": name, "input": given}]}
    if expect is not None:  # what the call before this one gave the model
        turn["expect"] = {"lastToolResultContains": expect}
    return turn


def process_events(cli: Cli) -> list[tuple[str, str, str | None]]:
    return [(e["id"], e["action"], e["by"]) for e in cli.events() if e["kind"] == "process"]


def observations(cli: Cli, name: str) -> list[str]:
    return [e["content"] for e in cli.events() if e["kind"] == "observation" and e["name"] == name]


def nothing_left(cli: Cli, site: Site) -> bool:
    """No process of the session: neither the server nor the session's sandbox."""
    return not processes_naming(site.token) and not processes_naming(str(cli.workspace))


ALLOW = ("--allow", "run_command(python3 *)")


@needs_bwrap
def test_a_server_started_in_the_background_is_fetched_read_and_stopped(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    site = Site(workspace, 8765)  # the session's own loopback: no other listens there
    model = script(
        tmp_path,
        site.start(),
        site.fetched(),
        call("process_output", None, id="p1", wait_seconds=10),
        call("process_stop", "GET /page.html", id="p1"),
        {"text": "Served, fetched and stopped.", "expect": {"lastToolResultContains": "stopped"}},
    )
    proc = cli.run("ask", "serve the site and check it", "--model", model, *ALLOW)
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "fetched.txt").read_text() == PAGE  # the second command reached it
    (log,) = observations(cli, "process_output")
    assert '"GET /page.html HTTP/1.1" 200' in log  # the server's log, as the model read it
    assert process_events(cli) == [("p1", "started", None), ("p1", "stopped", "model")]
    assert nothing_left(cli, site)
    session = cli.session_files()[0].stem  # replayed from the log: nothing starts again
    replayed = cli.run("replay", session)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "the runtime made the same decisions" in replayed.stdout
    assert process_events(cli) == [("p1", "started", None), ("p1", "stopped", "model")]


@needs_bwrap
def test_the_ask_stops_what_is_still_running_when_it_ends_and_says_so(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    site = Site(workspace, 8765)
    model = script(tmp_path, site.start(), site.fetched(), {"text": "Left it running."})
    proc = cli.run("ask", "serve it", "--model", model, *ALLOW)
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "fetched.txt").read_text() == PAGE
    assert f"stopped background process p1 as the ask ends: {site.serve}" in proc.stderr
    assert process_events(cli) == [("p1", "started", None), ("p1", "stopped", "session end")]
    assert nothing_left(cli, site)


def _waiting_on_the_model(cli: Cli, tmp_path: Path, site: Site) -> Any:
    """An ask whose model started the server and now takes its time to answer."""
    model = script(tmp_path, site.start(), {"delaySeconds": 300, "text": "Never said."})
    proc = cli.popen("ask", "serve it", "--model", model, *ALLOW)

    def waiting() -> bool:
        files = cli.session_files()
        if not files:
            return False
        kinds = [json.loads(line)["kind"] for line in files[0].read_text().splitlines() if line]
        return "process" in kinds and kinds.count("model_request") == 2

    wait_until(waiting, what="the server started and the model asked again")
    assert processes_naming(site.token), "the server runs"
    return proc


@needs_bwrap
def test_a_cancelled_ask_leaves_no_process(cli: Cli, workspace: Path, tmp_path: Path) -> None:
    site = Site(workspace, 8765)
    proc = _waiting_on_the_model(cli, tmp_path, site)
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "stopped background process p1" in stderr
    assert process_events(cli)[-1] == ("p1", "stopped", "session end")
    assert nothing_left(cli, site)


@needs_bwrap
def test_kill_9_of_agentls_leaves_no_process(cli: Cli, workspace: Path, tmp_path: Path) -> None:
    site = Site(workspace, 8765)
    proc = _waiting_on_the_model(cli, tmp_path, site)
    proc.kill()
    proc.communicate(timeout=60)
    # The sandbox dies with agentls, and every process of the session with it.
    wait_until(lambda: nothing_left(cli, site), what="the session's processes gone")


def test_a_background_command_under_a_deny_rule_is_denied(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    site = Site(workspace, 8765)
    model = script(
        tmp_path,
        site.start(),
        {"text": "Denied.", "expect": {"lastToolResultContains": "permission_denied"}},
    )
    proc = cli.run(
        "ask", "serve it", "--model", model, "--yes", *ALLOW,
        "--deny", "run_command(python3 -u -m http.server *)",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    (denied,) = [e for e in cli.events() if e["kind"] == "decision"]
    assert denied["verdict"] == "deny" and "http.server" in denied["source"]
    assert process_events(cli) == []
    assert nothing_left(cli, site)


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


def test_without_the_sandbox_the_same_flow_runs_and_the_port_is_closed_after(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    """Sandbox off: commands run as they are (the host's network), each background
    process in its own process group, stopped the same way at the end."""
    config = cli.state / "config" / "agentls"
    config.mkdir(parents=True)
    (config / "settings.json").write_text(json.dumps({"sandbox": "off"}))
    site = Site(workspace, free_port())
    model = script(tmp_path, site.start(), site.fetched(), {"text": "Left it running."})
    proc = cli.run(
        "ask", "serve it", "--model", model, *ALLOW,
        env={"XDG_CONFIG_HOME": str(cli.state / "config")},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (workspace / "fetched.txt").read_text() == PAGE
    started = next(e for e in cli.events() if e["kind"] == "process")
    assert started["sandbox"] == "none"
    assert not _listening(site.port)
    assert nothing_left(cli, site)
