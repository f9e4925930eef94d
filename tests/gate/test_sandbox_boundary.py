"""Issue class 4: the sandbox is a boundary. A sandboxed command reaches no Unix
socket, loopback port or file of the host outside the workspace, and sees none of
the agentls process's keys; the tools it needs still work.

One scripted run makes every attempt; each attempt leaves a marker file only if
it got through, and the listeners count who connected.
"""

from __future__ import annotations

import os
import secrets
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from agentls.workspace import sandbox
from tests.gate.boundary import (
    UnixListener,
    everything_written,
    home,
    tcp_connect,
    unix_connect,
)
from tests.gate.harness import Attack, Listener, command, listener

pytestmark = pytest.mark.skipif(
    sandbox.bwrap_problem() is not None and not os.environ.get("CI"),
    reason=f"no sandbox here: {sandbox.bwrap_problem()}",
)

TAG = f"agentls-gate-{os.getpid()}-{secrets.token_hex(4)}"
KEYS = {
    "ANTHROPIC_API_KEY": "sk-ant-api03-" + secrets.token_urlsafe(40),
    "OPENAI_API_KEY": "sk-proj-" + secrets.token_urlsafe(40),
    "GITHUB_TOKEN": "ghp_" + secrets.token_hex(18),
    "MY_SERVICE_SECRET": "svc-" + secrets.token_hex(12),
    "DEPLOY_KEY": "dk-" + secrets.token_hex(12),
    "AWS_SECRET_ACCESS_KEY": secrets.token_urlsafe(30),
}


@dataclass
class Run:
    attack: Attack
    proc: subprocess.CompletedProcess[str]
    tcp: Listener
    unix: dict[str, UnixListener]
    outside_value: str

    def marker(self, name: str) -> bool:
        return (self.attack.workspace / name).exists()

    def text(self, name: str) -> str:
        path = self.attack.workspace / name
        return path.read_text(errors="replace") if path.exists() else ""


def _unix_addresses(tmp: Path) -> dict[str, str]:
    found = {"tmp": f"/tmp/{TAG}.sock", "test-dir": str(tmp / "host.sock"), "abstract": f"\0{TAG}"}
    if os.access("/run", os.W_OK):
        found["run"] = f"/run/{TAG}.sock"
    if os.access(home(), os.W_OK):
        found["home"] = str(home() / f".{TAG}.sock")
    return found


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    root = tmp_path_factory.mktemp("sandbox")
    outside = root / "outside.txt"
    outside_value = "outside-" + secrets.token_hex(8)
    outside.write_text(outside_value)
    home_file = home() / f".{TAG}-dotfile"
    home_file.write_text(outside_value)
    listeners = {name: UnixListener(addr) for name, addr in _unix_addresses(root).items()}
    try:
        with listener() as tcp:
            attack = Attack(root, settings={"sandbox": "auto", "sandboxEnv": {"GIVEN": "given-1"}})
            for name, listening in listeners.items():
                attack.add(command(unix_connect(listening.address, f"reached-{name}")))
            attack.add(
                command(tcp_connect(tcp.port, "reached-tcp")),
                command(f"echo hi > /dev/tcp/127.0.0.1/{tcp.port} && touch reached-devtcp"),
                command("env > env.txt"),
                command("cat /proc/*/environ > proc-environ.txt 2>/dev/null; true"),
                command('echo "$ANTHROPIC_API_KEY $OPENAI_API_KEY $GITHUB_TOKEN"'),
                command("printenv MY_SERVICE_SECRET DEPLOY_KEY AWS_SECRET_ACCESS_KEY"),
                command(f"cat {outside} > outside-read.txt 2>&1; true"),
                command(f"cat {home_file} > home-read.txt 2>&1; true"),
                command("ls -a ~ /tmp /run > listing.txt 2>&1; true"),
                command(f"touch {root}/written-outside; true"),
                command("python3 -c \"open('python-ok', 'w').write('yes')\""),
                command("git status > git-ok"),  # a repository made below, as a person would
                command("rg --version > rg-ok"),
                command('printf %s "$GIVEN" > given.txt'),
                command('printf %s "$LANG" > lang.txt'),
                command("touch ran"),
            )
            env = {**KEYS, "LANG": "C.UTF-8"}
            subprocess.run(["git", "init", "-q", str(attack.workspace)], check=True)
            proc = attack.run("--yes", env=env)
            yield Run(attack, proc, tcp, listeners, outside_value)
    finally:
        for listening in listeners.values():
            listening.close()
        home_file.unlink(missing_ok=True)


def test_commands_ran(run: Run) -> None:
    assert run.marker("ran"), run.proc.stderr[-3000:]


@pytest.mark.parametrize("name", ["tmp", "test-dir", "abstract", "run", "home"])
def test_no_host_unix_socket_is_reached(run: Run, name: str) -> None:
    if name not in run.unix:
        pytest.skip(f"cannot make a socket for {name} here")
    assert not run.marker(f"reached-{name}")
    assert run.unix[name].connections == 0


def test_no_loopback_port_is_reached(run: Run) -> None:
    assert not run.marker("reached-tcp") and not run.marker("reached-devtcp")
    assert run.tcp.connections == 0


@pytest.mark.parametrize("name", sorted(KEYS))
def test_no_key_of_agentls_reaches_a_command(run: Run, name: str) -> None:
    assert KEYS[name] not in everything_written(run.attack, run.proc.stdout + run.proc.stderr)


def test_no_variable_beyond_the_pass_list(run: Run) -> None:
    names = {line.split("=", 1)[0] for line in run.text("env.txt").splitlines() if "=" in line}
    assert names, "env printed nothing"
    allowed = set(sandbox.PASSED_ENV) | {"GIVEN", "PAGER", "GIT_PAGER", "GIT_TERMINAL_PROMPT"}
    allowed |= {"GIT_CONFIG_PARAMETERS"}  # safe.bareRepository and core.fsmonitor, set here
    extra = {n for n in names if n not in allowed and not n.startswith("LC_")}
    assert extra <= {"PWD", "SHLVL", "_", "OLDPWD"}  # bash sets these itself


def test_files_outside_the_workspace_are_not_there(run: Run) -> None:
    assert run.outside_value not in run.text("outside-read.txt")
    assert run.outside_value not in run.text("home-read.txt")
    assert run.text("outside-read.txt")  # cat ran and said why it failed
    assert not (run.attack.root / "written-outside").exists()
    assert ".sock" not in run.text("listing.txt")


def test_tools_still_work(run: Run) -> None:
    assert run.text("python-ok") == "yes"
    assert "branch" in run.text("git-ok").lower() or "commits" in run.text("git-ok").lower()
    assert "ripgrep" in run.text("rg-ok")


def test_sandbox_env_and_the_pass_list_reach_commands(run: Run) -> None:
    assert run.text("given.txt") == "given-1"
    assert run.text("lang.txt") == "C.UTF-8"


def test_trusted_settings_can_allow_the_network(tmp_path: Path) -> None:
    """The suite can fail: with sandboxNetwork in the person's own file, the port is reached."""
    with listener() as tcp:
        attack = Attack(tmp_path, settings={"sandbox": "auto", "sandboxNetwork": True})
        attack.add(command(tcp_connect(tcp.port, "reached-tcp")))
        proc = attack.run("--yes")
        assert (attack.workspace / "reached-tcp").exists(), proc.stderr[-2000:]
        assert tcp.connections >= 1
