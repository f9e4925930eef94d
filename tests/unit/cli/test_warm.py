"""`agentls ask` served by a warm process: it serves the person's own asks, runs them as
the command would, passes signals on, steps aside when its code changes, and a
socket that is not the person's own is never told anything."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentls.cli import warm
from tests.helpers import wait_until
from tests.processes import process_alive, warm_processes

AGENTLS = str(Path(sys.executable).with_name("agentls"))
SECRET = "sk-warm-test-secret"
WAIT_SECONDS = 120.0  # the warm process imports every SDK first: slow on a loaded machine


def children_of(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_bytes().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


@pytest.fixture
def state() -> Iterator[Path]:
    # Short: a socket's path must fit in 108 bytes.
    folder = Path(tempfile.mkdtemp(prefix="aw-"))
    yield folder
    for pid in warm_processes(folder):
        for child in children_of(pid):
            os.kill(child, signal.SIGKILL)
        os.kill(pid, signal.SIGKILL)
    shutil.rmtree(folder, ignore_errors=True)


def setup(tmp_path: Path, state: Path, delay: float) -> tuple[Path, dict[str, str], list[str]]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": [{"text": "warm answer", "delaySeconds": delay}]}))
    home = tmp_path / "home"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"), "AGENTLS_STATE_DIR": str(state),
        "AGENTLS_WARM": "1", "AGENTLS_WARM_IDLE_SECONDS": "120", "ANTHROPIC_API_KEY": SECRET,
    }  # fmt: skip
    command = [AGENTLS, "ask", "hello", "--workspace", str(workspace),
               "--model", f"scripted:{script}", "--yes", "--json"]  # fmt: skip
    return workspace, env, command


def socket_of(state: Path, env: dict[str, str]) -> Path:
    code = "from agentls.cli.warm import socket_path\nprint(socket_path())"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=True)  # fmt: skip
    return Path(done.stdout.strip())


def listening(path: Path) -> bool:
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(os.fspath(path))
    except OSError:
        return False
    finally:
        probe.close()
    return True


def answer(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 0, done.stderr
    text: str = json.loads(done.stdout)["text"]
    return text


def test_the_next_ask_is_run_by_the_warm_process_the_first_started(
    tmp_path: Path, state: Path
) -> None:
    workspace, env, command = setup(tmp_path, state, delay=1.0)
    path = socket_of(state, env)
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(os.fspath(path))  # a socket no process listens on
    stale.close()
    first = subprocess.run(command, cwd=workspace, env=env, capture_output=True, text=True)
    assert answer(first) == "warm answer"  # run in its own process
    wait_until(lambda: listening(path), WAIT_SECONDS, "the warm process listens")
    assert path.stat().st_mode & 0o777 == 0o600
    [server] = warm_processes(state)

    second = subprocess.Popen(command, cwd=workspace, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)  # fmt: skip
    wait_until(lambda: children_of(server), WAIT_SECONDS, "the warm process forks the ask")
    [child] = children_of(server)
    # The child moves into the ask's folder just after the fork.
    wait_until(
        lambda: os.readlink(f"/proc/{child}/cwd") == str(workspace),
        WAIT_SECONDS,
        "the ask's folder",
    )
    assert SECRET.encode() in Path(f"/proc/{child}/environ").read_bytes()
    out, err = second.communicate(timeout=WAIT_SECONDS)
    assert answer(subprocess.CompletedProcess(command, second.returncode, out, err)) == (
        "warm answer"
    )
    wait_until(lambda: not process_alive(child), WAIT_SECONDS, "the ask's child is gone")


def test_a_signal_to_the_command_aborts_the_ask_the_warm_process_runs(
    tmp_path: Path, state: Path
) -> None:
    workspace, env, command = setup(tmp_path, state, delay=60.0)
    path = socket_of(state, env)
    warm_up = subprocess.Popen(command, cwd=workspace, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)  # fmt: skip
    wait_until(lambda: listening(path), WAIT_SECONDS, "the warm process listens")
    warm_up.kill()
    warm_up.wait()
    [server] = warm_processes(state)
    before = set(state.rglob("*.jsonl"))
    ask = subprocess.Popen(command, cwd=workspace, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)  # fmt: skip
    wait_until(lambda: children_of(server), WAIT_SECONDS, "the warm process forks the ask")
    [child] = children_of(server)
    new_logs = lambda: set(state.rglob("*.jsonl")) - before  # noqa: E731
    wait_until(lambda: any("hello" in log.read_text() for log in new_logs()), WAIT_SECONDS,
               "the ask is running")  # fmt: skip
    ask.send_signal(signal.SIGTERM)
    ask.communicate(timeout=WAIT_SECONDS)
    assert ask.returncode == 130  # aborted, as an ask in its own process
    wait_until(lambda: not process_alive(child), WAIT_SECONDS, "the ask's child is gone")


def test_a_warm_process_whose_code_changed_steps_aside(tmp_path: Path, state: Path) -> None:
    workspace, env, command = setup(tmp_path, state, delay=0.0)
    path = socket_of(state, env)
    code = tmp_path / "code"
    code.mkdir()
    (code / "module.py").write_text("x = 1\n")
    launch = ("import sys\nfrom pathlib import Path\nfrom agentls.cli import warm\n"
              "warm._CODE_ROOT = Path(sys.argv[2])\nwarm.serve(sys.argv[1])")  # fmt: skip
    server = subprocess.Popen([sys.executable, "-c", launch, str(path), str(code)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        wait_until(lambda: listening(path), WAIT_SECONDS, "the warm process listens")
        later = time.time() + 60
        os.utime(code / "module.py", (later, later))
        done = subprocess.run(command, cwd=workspace, env=env, capture_output=True, text=True)
        assert answer(done) == "warm answer"  # run in the command's own process
        server.wait(timeout=WAIT_SECONDS)  # and the warm process is gone
        assert not path.exists()
    finally:
        server.kill()


def recorder(path: Path) -> tuple[socket.socket, list[bytes]]:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(os.fspath(path))
    listener.listen(1)
    received: list[bytes] = []

    def accept() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.settimeout(WAIT_SECONDS)
            while chunk := connection.recv(65536):
                received.append(chunk)
        received.append(b"<closed>")

    threading.Thread(target=accept, daemon=True).start()
    return listener, received


@pytest.mark.parametrize("whose", ["another user's socket", "a folder others can write"])
def test_a_socket_not_the_persons_own_is_told_nothing(
    state: Path, monkeypatch: pytest.MonkeyPatch, whose: str
) -> None:
    monkeypatch.setenv("AGENTLS_STATE_DIR", str(state))
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.setenv("AGENTLS_WARM", "1")
    listener, received = recorder(warm.socket_path())
    if whose == "a folder others can write":
        state.chmod(0o777)
    else:
        real = os.getuid()
        monkeypatch.setattr(warm.os, "getuid", lambda: real + 1)
    with listener:
        assert warm.ask_warm(["ask", "hello"]) is None  # the command runs the ask itself
        wait_until(lambda: received[-1:] == [b"<closed>"], WAIT_SECONDS, "the connection closes")
    assert received == [b"<closed>"]


def test_on_unless_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTLS_WARM", raising=False)
    assert warm.wanted(["ask", "hello"]) and not warm.wanted(["sessions"])
    for off in ("0", "false", "Off"):
        monkeypatch.setenv("AGENTLS_WARM", off)
        assert not warm.wanted(["ask", "hello"])
    monkeypatch.setenv("AGENTLS_WARM", "1")
    assert warm.wanted(["ask", "hello"])


def doctor(env: dict[str, str], workspace: Path) -> tuple[dict[str, object], str]:
    """`agentls doctor`'s warm process, in --json and as a person reads it."""
    report = subprocess.run([AGENTLS, "doctor", "--json"], env=env, capture_output=True,
                            text=True, cwd=workspace)  # fmt: skip
    text = subprocess.run([AGENTLS, "doctor"], env=env, capture_output=True, text=True,
                          cwd=workspace)  # fmt: skip
    line = next(x for x in text.stdout.splitlines() if x.startswith("warm process"))
    found: dict[str, object] = json.loads(report.stdout)["warmProcess"]
    return found, line.removeprefix("warm process").strip()


def test_the_doctor_says_whether_a_warm_process_serves_and_how_to_turn_it_off(
    tmp_path: Path, state: Path
) -> None:
    workspace, env, command = setup(tmp_path, state, delay=0.0)
    off, said = doctor({**env, "AGENTLS_WARM": "0"}, workspace)
    assert (
        off["enabled"] is False and said == "off (AGENTLS_WARM=0): every ask starts its own process"
    )
    none, said = doctor(env, workspace)
    assert none["enabled"] is True and none["servingPid"] is None
    assert said == ("none running: the next ask starts one, ends after 120 s without an ask; "
                    "AGENTLS_WARM=0 turns it off")  # fmt: skip
    assert answer(subprocess.run(command, cwd=workspace, env=env, capture_output=True,
                                 text=True)) == "warm answer"  # fmt: skip
    path = socket_of(state, env)
    wait_until(lambda: listening(path), WAIT_SECONDS, "the warm process listens")
    [server] = warm_processes(state)
    serving, said = doctor(env, workspace)
    assert serving["servingPid"] == server and serving["socket"] == str(path)
    assert said.startswith(f"serving asks (pid {server}), ends after 120 s without an ask;")
    assert warm_processes(state) == [server]  # the doctor's look forked no ask


def test_an_ask_the_warm_process_runs_ends_as_its_own_process_would(
    tmp_path: Path, state: Path
) -> None:
    """What an ask leaves for its process's exit is done in the warm process's child too: a
    search's scratch folder (ripgrep's ignore file) is gone when the command returns."""
    workspace, env, command = setup(tmp_path, state, delay=1.0)
    (workspace / "a.py").write_text("x = 1\n")
    search = {"name": "search", "input": {"pattern": "x"}}
    # The ask waits for the test's word after its search, so its scratch folder is seen
    # however slowly this machine polls.
    wait = {"name": "run_command", "input": {"command": "until [ -e go ]; do sleep 0.05; done"}}
    turns = [{"toolCalls": [search]}, {"toolCalls": [wait]}, {"text": "warm answer"}]
    Path(command[command.index("--model") + 1].removeprefix("scripted:")).write_text(
        json.dumps({"turns": turns})
    )
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env["TMPDIR"] = str(scratch)
    path = socket_of(state, env)
    (workspace / "go").touch()
    first = subprocess.run(command, cwd=workspace, env=env, capture_output=True, text=True)
    assert answer(first) == "warm answer"  # in its own process: it starts the warm one
    assert list(scratch.glob("agentls-rg-*")) == []
    (workspace / "go").unlink()
    wait_until(lambda: listening(path), WAIT_SECONDS, "the warm process listens")
    [server] = warm_processes(state)
    second = subprocess.Popen(command, cwd=workspace, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)  # fmt: skip
    wait_until(lambda: children_of(server), WAIT_SECONDS, "the warm process forks the ask")
    wait_until(
        lambda: list(scratch.glob("agentls-rg-*")),
        WAIT_SECONDS,
        "the search makes its scratch folder",
    )
    (workspace / "go").touch()
    out, err = second.communicate(timeout=WAIT_SECONDS)
    assert answer(subprocess.CompletedProcess(command, second.returncode, out, err)) == (
        "warm answer"
    )
    assert list(scratch.glob("agentls-rg-*")) == []


def test_a_second_warm_process_leaves_the_listening_one_be(tmp_path: Path, state: Path) -> None:
    _, env, _ = setup(tmp_path, state, delay=0.0)
    path = socket_of(state, env)
    launch = "import sys\nfrom agentls.cli.warm import serve\nserve(sys.argv[1])"
    first = subprocess.Popen([sys.executable, "-c", launch, str(path)], env=env)
    try:
        wait_until(lambda: listening(path), WAIT_SECONDS, "the warm process listens")
        inode = path.stat().st_ino
        second = subprocess.run([sys.executable, "-c", launch, str(path)], env=env, check=False)
        assert second.returncode == 0  # it ended at once
        assert path.stat().st_ino == inode and listening(path)
        assert first.poll() is None
    finally:
        first.kill()


def test_asks_while_a_warm_process_starts_do_not_start_another(
    state: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTLS_STATE_DIR", str(state))
    started: list[list[str]] = []
    monkeypatch.setattr(warm.subprocess, "Popen", lambda command, **kw: started.append(command))
    assert warm.ask_warm(["ask", "one"]) is None
    assert warm.ask_warm(["ask", "two"]) is None  # the first is still starting
    assert len(started) == 1
    marker = warm.socket_path().with_name(warm.socket_path().name + ".starting")
    long_ago = time.time() - warm.START_SECONDS - 1
    os.utime(marker, (long_ago, long_ago))  # it died while starting
    assert warm.ask_warm(["ask", "three"]) is None
    assert len(started) == 2
