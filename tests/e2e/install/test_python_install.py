"""The sdist and wheel build from the tree; `pipx install` and `uv tool install` of the
wheel give an `agentls` that runs `doctor` and the demo, away from this checkout."""

from __future__ import annotations

import json
import re
import subprocess
import tarfile
import tomllib
import zipfile
from pathlib import Path

from tests.e2e.install.conftest import ROOT, clean_env, copy_demo, dev_tool

VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
DEMO_PROMPT = re.search(r"^DEMO_PROMPT \?= (.+)$", (ROOT / "Makefile").read_text(), re.M)


def run(argv: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


def test_the_sdist_and_the_wheel_hold_the_whole_package(dist: Path) -> None:
    (sdist,) = dist.glob(f"agentls-{VERSION}.tar.gz")
    (wheel,) = dist.glob(f"agentls-{VERSION}-py3-none-any.whl")
    with tarfile.open(sdist) as tar:
        names = set(tar.getnames())
    assert f"agentls-{VERSION}/server/data/demo/workspace/greet.py" in names
    assert f"agentls-{VERSION}/tools/__init__.py" in names
    inside = set(zipfile.ZipFile(wheel).namelist())
    for name in ("agentls/cli/main.py", "agentls/tools/__init__.py", "agentls/data/models.json",
                 "agentls/data/demo/script.json", "agentls/data/demo/workspace/greet.py",
                 "agentls/py.typed"):  # fmt: skip
        assert name in inside, name
    entry = zipfile.ZipFile(wheel).read(f"agentls-{VERSION}.dist-info/entry_points.txt").decode()
    assert "agentls = agentls.cli.main:main" in entry


def test_pipx_install_runs_doctor_and_the_demo(dist: Path, tmp_path: Path) -> None:
    (wheel,) = dist.glob("agentls-*.whl")
    home, bin_dir = tmp_path / "home", tmp_path / "bin"
    home.mkdir()
    env = clean_env(home, bin_dir)
    pipx_env = env | {"PIPX_HOME": str(tmp_path / "pipx"), "PIPX_BIN_DIR": str(bin_dir),
                      "PIPX_MAN_DIR": str(tmp_path / "man")}  # fmt: skip
    installed = run([dev_tool("pipx"), "install", str(wheel)], pipx_env, tmp_path)
    assert installed.returncode == 0, installed.stderr
    agentls = str(bin_dir / "agentls")
    assert run([agentls, "--version"], env, tmp_path).stdout.strip() == f"agentls {VERSION}"
    # Its own interpreter, not this checkout's: the code runs from the pipx venv.
    where = run([str(tmp_path / "pipx/venvs/agentls/bin/python"), "-c",
                 "import agentls, sys; print(agentls.__file__)"], env, tmp_path)  # fmt: skip
    assert where.stdout.startswith(str(tmp_path / "pipx")), where

    workspace = copy_demo(tmp_path)
    blocked = run([agentls, "doctor", "--json", "--workspace", str(workspace)], env, tmp_path)
    assert blocked.returncode == 2, blocked.stderr
    report = json.loads(blocked.stdout)
    assert report["version"] == VERSION and report["ok"] is False
    assert report["model"] == {"id": "anthropic:claude-sonnet-4-5", "provider": "anthropic",
                               "keyVariable": "ANTHROPIC_API_KEY", "keySet": False,
                               "baseUrl": None,
                               "contextWindow": {"source": "the model table",
                                                 "tokens": 200000},
                               "images": True,
                               "reasoning": {"level": "off", "chosen": False,
                                             "detail": "off (the model's default)"}}  # fmt: skip
    assert report["folders"]["state"] == str(home / ".local/state/agentls")

    ready = run([agentls, "doctor", "--model", "scripted:demo", "--workspace", str(workspace)],
                env, tmp_path)  # fmt: skip
    assert ready.returncode == 0, ready.stdout
    assert ready.stdout.rstrip().endswith("ready to ask")

    assert DEMO_PROMPT is not None
    demo = run([agentls, "ask", DEMO_PROMPT.group(1), "--workspace", str(workspace),
                "--model", "scripted:demo", "--yes"], env, tmp_path)  # fmt: skip
    assert demo.returncode == 0, demo.stderr
    assert "def shout(name: str) -> str:" in (workspace / "greet.py").read_text()
    assert "HELLO, WORLD!" in demo.stdout + demo.stderr
    assert "[completed" in demo.stderr


def test_uv_tool_install_gives_a_working_agentls(dist: Path, tmp_path: Path) -> None:
    (wheel,) = dist.glob("agentls-*.whl")
    home, bin_dir = tmp_path / "home", tmp_path / "bin"
    home.mkdir()
    env = clean_env(home, bin_dir)
    uv_env = env | {"UV_TOOL_DIR": str(tmp_path / "tools"), "UV_TOOL_BIN_DIR": str(bin_dir)}
    installed = run([dev_tool("uv"), "tool", "install", str(wheel)], uv_env, tmp_path)
    assert installed.returncode == 0, installed.stderr
    agentls = str(bin_dir / "agentls")
    assert run([agentls, "--version"], env, tmp_path).stdout.strip() == f"agentls {VERSION}"
    key = "sk-ant-never-shown-0123"
    doctor = run([agentls, "doctor", "--json"], env | {"ANTHROPIC_API_KEY": key}, tmp_path)
    assert doctor.returncode == 0, doctor.stdout
    report = json.loads(doctor.stdout)
    assert report["ok"] is True and report["model"]["keySet"] is True
    assert key not in doctor.stdout and key not in doctor.stderr
    assert report["python"]["executable"].startswith(str(tmp_path / "tools"))
