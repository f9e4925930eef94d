"""Running a real editor headless against `agentls serve` and the fake model server.

The editor runs a driver script that plays the person (asks, approves the
command, reviews and accepts the edit, saves, reads the answer) and writes
what it saw as JSON; the test then checks that report, the file on disk and
what the model was sent. The editor runs in its own process group, killed
(with the server it started) when it overruns its deadline.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.fakes.anthropic_server import FakeAnthropic, turn

REPO = Path(__file__).resolve().parents[3]
EDITORS = REPO / "editors"
SERVER_COMMAND = [sys.executable, "-m", "agentls", "serve"]
DEADLINE_SECONDS = 120.0

GREET = "def greet(name):\n    return f'hello {name}'\n"
SHOUT = GREET + "\n\ndef shout(name):\n    return greet(name).upper()\n"
EDIT = {"path": "greet.py", "old_text": GREET, "new_text": SHOUT}
ANSWER = "Added shout() to greet.py and checked that the command ran."


def script_the_model(fake: FakeAnthropic) -> None:
    """Run a command (needs approval), edit greet.py (needs review), answer."""
    fake.add(
        turn(tool_calls=[("toolu_cmd", "run_command", {"command": "touch ran.txt"})]),
        turn(tool_calls=[("toolu_edit", "edit_file", EDIT)]),
        turn(ANSWER),
    )


# A background command that ends by itself at once: its start and its exit in the log.
BACKGROUND = "echo from the background > background.txt"


def script_a_background_command(fake: FakeAnthropic) -> None:
    """Start BACKGROUND in the background (needs approval), then answer."""
    command = {"command": BACKGROUND, "background": True}
    fake.add(turn(tool_calls=[("toolu_bg", "run_command", command)]), turn(ANSWER))


# A command that runs until the driver, having looked, makes the file `release`.
WAITING_COMMAND = "while [ ! -e release ]; do sleep 0.1; done; echo released"
MODEL_PAUSE_SECONDS = 5  # long enough to be seen on a busy machine
SLOW_ANSWER = "The slow command ran."


def slow_model(folder: Path) -> str:
    """A scripted model (its id) that pauses, asks to run WAITING_COMMAND, pauses
    again, then answers: what a person sees while a run goes on."""
    script = folder / "slow.json"
    pause = {"delaySeconds": MODEL_PAUSE_SECONDS}
    command = {"name": "run_command", "input": {"command": WAITING_COMMAND}}
    turns = [{**pause, "toolCalls": [command]}, {**pause, "text": SLOW_ANSWER}]
    script.write_text(json.dumps({"turns": turns}))
    return f"scripted:{script}"


def stalled_model(folder: Path) -> str:
    """A scripted model (its id) that thinks for longer than any test: to cancel."""
    script = folder / "stalled.json"
    script.write_text(json.dumps({"turns": [{"delaySeconds": 600, "text": "too late"}]}))
    return f"scripted:{script}"


DEMO_WORKSPACE = REPO / "server" / "data" / "demo" / "workspace"
DEMO_EDITED = (
    (DEMO_WORKSPACE / "greet.py")
    .read_text()
    .replace(
        '    return f"Hello, {name}!"\n',
        '    return f"Hello, {name}!"\n\n\ndef shout(name: str) -> str:\n'
        "    return greet(name).upper()\n",
    )
)


def make_demo_workspace(root: Path) -> Path:
    """The bundled demo's project, as `make demo` copies it."""
    for source in DEMO_WORKSPACE.iterdir():
        (root / source.name).write_bytes(source.read_bytes())
    (root / ".git").mkdir()
    return root / "greet.py"


def make_workspace(root: Path) -> Path:
    (root / "greet.py").write_text(GREET)
    (root / ".git").mkdir()  # the project root, as editors find it
    return root / "greet.py"


@dataclass
class Outcome:
    returncode: int
    stdout: str
    stderr: str
    report: dict[str, Any]


def run_editor(
    argv: list[str], *, cwd: Path, env: dict[str, str], report: Path, stdin: str = ""
) -> Outcome:
    full_env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "AGENTLS_"))}
    full_env["AGENTLS_WARM"] = "0"  # as for every process of the suite (tests/conftest.py)
    full_env.update(env)
    full_env["AGENTLS_TEST_REPORT"] = str(report)
    full_env["AGENTLS_TEST_SERVER"] = json.dumps(SERVER_COMMAND)
    process = subprocess.Popen(
        argv,
        cwd=cwd,
        env=full_env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = process.communicate(stdin, timeout=DEADLINE_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        raise AssertionError(
            f"{argv[0]} did not finish in {DEADLINE_SECONDS:g} s\n--- stdout\n{stdout[-3000:]}"
            f"\n--- stderr\n{stderr[-3000:]}\n--- report\n{_read(report)}"
        ) from None
    finally:
        _kill_group(process.pid)
    return Outcome(process.returncode, stdout, stderr, _read(report))


def _read(report: Path) -> dict[str, Any]:
    try:
        loaded: dict[str, Any] = json.loads(report.read_text())
        return loaded
    except (OSError, ValueError):
        return {}


def _kill_group(pgid: int) -> None:
    """Whatever the editor left behind (its language server) goes with it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)
