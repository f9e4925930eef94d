"""Control files are read-only to commands by the OS: inside the sandbox every control
file and folder that exists, at any depth, is bound read-only, so no spelling the gate
might misread writes one. Each attack runs as a command in the real sandbox and is
judged by the files on disk, as an attacker would judge it; a run a person approved
to write control files (``control_writable``) can.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from agentls.workspace import process, sandbox
from agentls.workspace.local import LocalWorkspace
from agentls.workspace.sandbox import SandboxSettings

pytestmark = pytest.mark.skipif(
    sandbox.bwrap_problem() is not None and not os.environ.get("CI"),
    reason=f"no sandbox here: {sandbox.bwrap_problem()}",
)

PROTECTED = ("Makefile", "deploy/**")
# Every control file and folder of the workspace below, as the tests check them.
CONTROLS = (".git", "lib/.git", "gitdirs/lib", "sub/.vscode", ".github/workflows",
            ".envrc", ".agentls", "Makefile", "deploy")  # fmt: skip
GIT = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]


def _git(root: Path, *args: str) -> None:
    subprocess.run([*GIT, *args], cwd=root, check=True, capture_output=True)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A real repository with a nested submodule-style ``lib/.git`` file whose git dir
    is inside the workspace, control folders at the root and below, and protected paths."""
    ws = tmp_path / "ws"
    ws.mkdir()
    _git(ws, "init", "-q")
    files = {"a.py": "x = 1\n", "sub/.vscode/tasks.json": "{}\n", ".envrc": "export A=1\n",
             ".github/workflows/ci.yml": "on: push\n", ".agentls/settings.json": "{}\n",
             "Makefile": "all:\n\ttrue\n", "deploy/run.sh": "echo deploy\n",
             "lib/mod.py": "y = 2\n"}  # fmt: skip
    for rel, text in files.items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    (ws / ".git/hooks").mkdir(exist_ok=True)
    _git(ws, "add", "-A")
    _git(ws, "commit", "-qm", "first")
    (ws / "gitdirs/lib").mkdir(parents=True)
    _git(ws / "gitdirs/lib", "init", "-q", "--bare")
    (ws / "lib/.git").write_text("gitdir: ../gitdirs/lib\n")
    return ws


def workspace(root: Path) -> LocalWorkspace:
    return LocalWorkspace(root, sandbox=SandboxSettings(protected_patterns=PROTECTED))


def state(root: Path) -> dict[str, str]:
    """What every control path holds, read without following links."""
    found: dict[str, str] = {}
    for top in CONTROLS:
        for path in [root / top, *sorted((root / top).rglob("*"))]:
            rel = path.relative_to(root).as_posix()
            if path.is_symlink():
                found[rel] = "link -> " + os.readlink(path)
            elif path.is_file():
                found[rel] = path.read_text(errors="replace")
            elif path.is_dir():
                found[rel] = "folder"
            else:
                found[rel] = "missing"
    return found


async def run(ws: LocalWorkspace, command: str, *, control_writable: bool = False) -> str:
    env, prefix = await asyncio.to_thread(ws._command_setup, control_writable)
    assert prefix is not None  # the sandbox is used
    result = await process.run_shell(command, ws.root, 30, 20_000, prefix, env)
    return f"{result.output}[exit {result.exit_code}]"


EVIL = "gitdir: ../evil"
ATTACKS = [
    # the repository's own .git
    "echo evil > .git/config",
    "echo evil >> .git/config",
    "echo '#!/bin/sh' > .git/hooks/x && chmod +x .git/hooks/x",
    "cp a.py .git/hooks/pre-commit",
    "python3 -c \"open('.git/config', 'w').write('evil')\"",
    "python3 -c \"import os; os.rename('.git', 'moved')\"",
    "sed -i s/core/evil/ .git/config",
    "mv .git moved && mkdir .git && echo evil > .git/config",
    "rm -rf .git",
    "ln -sf /tmp/x .git/hooks/pre-commit",
    "cd .git/hooks && cp ../../a.py post-checkout",
    # a nested repository's .git file and the git dir it names
    f"echo '{EVIL}' > lib/.git",
    f"python3 -c \"open('lib/.git', 'w').write('{EVIL}')\"",
    f"mv lib lib2 && mkdir lib && echo '{EVIL}' > lib/.git",
    f"rm -rf lib; mkdir -p lib && echo '{EVIL}' > lib/.git",
    "ln -sf ../evil lib/.git",
    "sed -i s/gitdirs/evil/ lib/.git",
    "echo '[core] fsmonitor = touch pwned' >> gitdirs/lib/config",
    "mv gitdirs g2 && mkdir -p gitdirs/lib && echo evil > gitdirs/lib/config",
    # a nested .vscode
    "echo evil > sub/.vscode/tasks.json",
    "cp a.py sub/.vscode/tasks.json",
    "python3 -c \"open('sub/.vscode/tasks.json', 'w').write('evil')\"",
    "sed -i s/{}/evil/ sub/.vscode/tasks.json",
    "mv sub sub2 && mkdir -p sub/.vscode && echo evil > sub/.vscode/tasks.json",
    "mv sub/.vscode sub/v && mkdir sub/.vscode && echo evil > sub/.vscode/tasks.json",
    "rm -rf sub",
    "ln -sf /etc/hostname sub/.vscode/tasks.json",
    "cd sub && echo evil > .vscode/tasks.json",
    # root control files
    "echo evil > .envrc",
    "mv .envrc e && echo evil > .envrc",
    "echo evil > .agentls/settings.json",
    "mv .github gh && mkdir -p .github/workflows && echo evil > .github/workflows/ci.yml",
    "echo evil > .github/workflows/new.yml",
    # permissions.protectedPaths
    "echo evil > Makefile",
    "sed -i s/true/evil/ Makefile",
    "python3 -c \"open('Makefile', 'w').write('evil')\"",
    "mv Makefile M; echo evil > Makefile",
    "rm -f Makefile",
    "ln -sf a.py Makefile",
    "echo evil > deploy/run.sh",
    "echo evil > deploy/new.sh",
    "mv deploy d2 && mkdir deploy && echo evil > deploy/run.sh",
]


@pytest.mark.parametrize("attack", ATTACKS)
async def test_no_spelling_of_a_command_writes_a_control_file(root: Path, attack: str) -> None:
    before = state(root)
    out = await run(workspace(root), attack)
    assert state(root) == before, out


async def test_git_reads_work_on_a_read_only_git_folder(root: Path) -> None:
    (root / "a.py").write_text("x = 2\n")
    ws = workspace(root)
    status = await run(ws, "git status --short")
    assert "M a.py" in status and status.endswith("[exit 0]"), status
    diff = await run(ws, "git diff")
    assert "+x = 2" in diff and diff.endswith("[exit 0]"), diff
    log = await run(ws, "git log --oneline")
    assert "first" in log and log.endswith("[exit 0]"), log


async def test_the_rest_of_the_workspace_stays_writable(root: Path) -> None:
    out = await run(workspace(root), "echo ok > sub/new.txt && echo ok > lib/new.py && rm a.py")
    assert out.endswith("[exit 0]"), out
    assert (root / "sub/new.txt").read_text() == "ok\n" and not (root / "a.py").exists()


@pytest.mark.parametrize(
    ("attack", "changed"),
    [
        ("echo '[alias] x = y' >> .git/config", ".git/config"),
        ("echo '#!/bin/sh' > .git/hooks/x", ".git/hooks/x"),
        (f"echo '{EVIL}' > lib/.git", "lib/.git"),
        ("echo evil > sub/.vscode/tasks.json", "sub/.vscode/tasks.json"),
        ("echo evil > Makefile", "Makefile"),
        ("mv sub sub2", "sub/.vscode"),
    ],
)
async def test_a_run_a_person_approved_writes_them(root: Path, attack: str, changed: str) -> None:
    before = state(root)
    out = await run(workspace(root), attack, control_writable=True)
    assert out.endswith("[exit 0]"), out
    after = state(root)
    assert after.get(changed) != before[changed] if changed in before else changed in after


async def test_a_person_approved_commit_writes_git(root: Path) -> None:
    (root / "a.py").write_text("x = 3\n")
    commit = " ".join(GIT) + " commit -qam second && git log --oneline"
    ws = workspace(root)
    refused = await run(ws, commit)
    assert "second" not in refused
    done = await run(ws, commit, control_writable=True)
    assert "second" in done, done


async def test_agentls_own_folders_are_read_only_where_the_sandbox_shows_them(
    tmp_path: Path, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "shared"  # a sandboxWritable folder
    (shared / "state").mkdir(parents=True)
    (shared / "state/trusted-settings.json").write_text("{}\n")
    (root / "home/.config/agentls").mkdir(parents=True)
    (root / "home/.config/agentls/settings.json").write_text("{}\n")
    monkeypatch.setenv("AGENTLS_STATE_DIR", str(shared / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / "home/.config"))
    ws = LocalWorkspace(root, sandbox=SandboxSettings(writable=(str(shared),)))
    for attack in (
        f"echo evil > {shared}/state/trusted-settings.json",
        f"mv {shared}/state {shared}/s2 && mkdir {shared}/state",
        "echo evil > home/.config/agentls/settings.json",
        "mv home/.config c2 && mkdir -p home/.config/agentls"
        " && echo evil > home/.config/agentls/settings.json",
    ):
        await run(ws, attack)
    assert (shared / "state/trusted-settings.json").read_text() == "{}\n"
    assert (root / "home/.config/agentls/settings.json").read_text() == "{}\n"
    out = await run(ws, f"echo ok > {shared}/other.txt")  # the rest of the folder is writable
    assert (shared / "other.txt").read_text() == "ok\n", out
