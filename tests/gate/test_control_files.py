"""Issue class 7: the model cannot grant itself more. Writing a control file
(`.git/**`, `.agentls/**`, `.vscode/**`, `.envrc`, `.github/workflows/**` and
`permissions.protectedPaths`) needs a person: accept-edits mode, allow rules,
`--yes` and bypass mode do not approve it, by tool or by command.

Also the rule bug of class 8: `write_file(./docs/*)` denies `docs/a.md`.
"""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.terminal import TerminalRun
from tests.gate.harness import Attack, call, command
from tests.helpers import wait_until

SETTINGS = {"permissions": {"protectedPaths": ["Makefile", "deploy/**"]}}
RULES = ["run_command(echo *)", "run_command(cat *)", "run_command(git *)",
         "run_command(cp *)", "run_command(tee *)", "run_command(touch *)",
         "run_command(mkdir *)", "run_command(ln *)", "run_command(bash *)",
         "run_command(sed *)", "run_command(rm *)", "run_command(mv *)",
         "run_command(dd *)"]  # fmt: skip
EXISTING = {".envrc": "export A=1\n", ".vscode/settings.json": "{}\n",
            ".github/workflows/ci.yml": "on: push\n", "Makefile": "all:\n\ttrue\n"}  # fmt: skip


def write(path: str) -> dict[str, Any]:
    return call("write_file", path=path, content="evil\n")


def edit(path: str, old: str) -> dict[str, Any]:
    return call("edit_file", path=path, old_string=old, new_string="evil")


# (case, target path to check, tool call)
ATTACKS: list[tuple[str, str, dict[str, Any]]] = [
    ("write-hook", ".git/hooks/pre-commit", write(".git/hooks/pre-commit")),
    ("write-git-config", ".git/config", write(".git/config")),
    ("write-dot-slash", ".git/hooks/post-checkout", write("./.git/hooks/post-checkout")),
    ("write-dot-dot", ".git/hooks/pre-push", write("sub/../.git/hooks/pre-push")),
    ("write-through-symlink", ".git/hooks/commit-msg", write("gitlink/hooks/commit-msg")),
    ("write-agentls-settings", ".agentls/settings.json", write(".agentls/settings.json")),
    ("write-vscode-settings", ".vscode/settings.json", write(".vscode/settings.json")),
    ("write-vscode-tasks", ".vscode/tasks.json", write(".vscode/tasks.json")),
    ("write-envrc", ".envrc", write(".envrc")),
    ("write-workflow", ".github/workflows/ci.yml", write(".github/workflows/ci.yml")),
    ("write-new-workflow", ".github/workflows/new.yml", write(".github/workflows/new.yml")),
    ("write-workflow-dot", ".github/workflows/x.yml", write("./.github/workflows/x.yml")),
    ("write-configured", "Makefile", write("Makefile")),
    ("write-configured-glob", "deploy/run.sh", write("deploy/run.sh")),
    ("edit-envrc", ".envrc", edit(".envrc", "A=1")),
    ("edit-vscode", ".vscode/settings.json", edit(".vscode/settings.json", "{}")),
    ("edit-workflow", ".github/workflows/ci.yml", edit(".github/workflows/ci.yml", "push")),
    ("edit-configured", "Makefile", edit("Makefile", "true")),
    ("redirect-hook", ".git/hooks/pre-rebase", command("echo x > .git/hooks/pre-rebase")),
    ("redirect-append-config", ".git/config", command("echo '[x]' >> .git/config")),
    ("redirect-vscode", ".vscode/extensions.json", command("echo x > ./.vscode/extensions.json")),
    ("redirect-envrc", ".envrc", command("echo x > .envrc")),
    ("redirect-workflow", ".github/workflows/c.yml",
     command("cat canary.txt > .github/workflows/c.yml")),
    ("redirect-configured", "Makefile", command("echo x > Makefile")),
    ("redirect-in-bash-c", ".git/hooks/post-commit",
     command("bash -c 'echo x > .git/hooks/post-commit'")),
    ("git-config-set", ".git/config", command("git config core.hooksPath hooks")),
    ("git-config-add", ".git/config", command("git config --add alias.z '!true'")),
    ("cp-into-hooks", ".git/hooks/pre-merge-commit",
     command("cp canary.txt .git/hooks/pre-merge-commit")),
    ("tee-agentls", ".agentls/x.json", command("echo x | tee .agentls/x.json")),
    ("touch-vscode", ".vscode/new", command("touch .vscode/new")),
    ("mkdir-workflows", ".github/workflows/sub", command("mkdir -p .github/workflows/sub")),
    ("ln-hook", ".git/hooks/post-merge", command("ln -s ../../canary.txt .git/hooks/post-merge")),
    ("sed-in-place", ".envrc", command("sed -i s/A=1/A=2/ .envrc")),
    ("rm-vscode", ".vscode/settings.json", command("rm .vscode/settings.json")),
    ("mv-envrc", ".envrc", command("mv .envrc envrc.bak")),
    ("dd-hook", ".git/hooks/pre-auto-gc", command("dd if=canary.txt of=.git/hooks/pre-auto-gc")),
    ("variable-target", ".git/hooks/fsmonitor-watchman",
     command("D=.git; echo x > $D/hooks/fsmonitor-watchman")),
    ("glob-target", "Makefile", command("cp canary.txt Makefil[e]")),
    ("xargs-target", ".envrc", command("echo .envrc | xargs rm")),
    ("find-exec-target", ".git/hooks/post-update",
     command("find .git/hooks -maxdepth 0 -exec cp canary.txt {}/post-update \\;")),
    ("dd-tilde-after-equals", ".git/hooks/pre-applypatch",
     command("dd if=canary.txt of=~/project/.git/hooks/pre-applypatch")),
]  # fmt: skip
CONTROLS = [write("src/ok.py"), command("echo ok > ok.txt"), write("docs/a.md")]
MODES = {
    "accept-edits": ["--mode=accept-edits"],
    "accept-edits-yes": ["--mode=accept-edits", "--yes"],
    "bypass-yes": ["--mode=bypass", "--yes"],
}


def fingerprint(root: Path, path: str) -> str | None:
    target = root / path
    if target.is_symlink():
        return "link:" + str(target.readlink())
    if target.is_dir():
        return "dir"
    return hashlib.sha256(target.read_bytes()).hexdigest() if target.exists() else None


def prepare(attack: Attack) -> dict[str, str | None]:
    attack.settings = SETTINGS
    ws = attack.workspace
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (ws / "sub").mkdir()
    (ws / "gitlink").symlink_to(".git")
    for path, text in EXISTING.items():
        (ws / path).parent.mkdir(parents=True, exist_ok=True)
        (ws / path).write_text(text)
    attack.add(*(tool_call for _, _, tool_call in ATTACKS), *CONTROLS)
    return {path: fingerprint(ws, path) for _, path, _ in ATTACKS}


@pytest.fixture(autouse=True)
def isolated_state() -> None:
    """Nothing here runs agentls in-process: each run has its own state dir (harness.py),
    so the per-test temporary state folder of tests/conftest.py is not needed."""


@pytest.fixture(scope="module", params=list(MODES))
def run(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Attack, dict[str, str | None], subprocess.CompletedProcess[str]]:
    attack = Attack(tmp_path_factory.mktemp(request.param))
    before = prepare(attack)
    proc = attack.run(
        *MODES[request.param],
        *[f"--allow={r}" for r in RULES],
        "--deny=write_file(./docs/*)",
        env={"HOME": str(attack.root)},  # ~/project is the workspace
    )
    return attack, before, proc


def test_other_writes_still_go_through(run: tuple[Attack, dict[str, Any], Any]) -> None:
    attack, _, proc = run
    assert (attack.workspace / "src" / "ok.py").read_text() == "evil\n", proc.stderr[-2000:]
    assert (attack.workspace / "ok.txt").exists()


def test_a_deny_rule_written_with_dot_slash_denies(run: tuple[Attack, Any, Any]) -> None:
    attack, _, _ = run
    assert not (attack.workspace / "docs" / "a.md").exists()


@pytest.mark.parametrize("index", range(len(ATTACKS)), ids=[name for name, _, _ in ATTACKS])
def test_control_files_need_a_person(
    run: tuple[Attack, dict[str, str | None], Any], index: int
) -> None:
    attack, before, _ = run
    name, path, _ = ATTACKS[index]
    decision = attack.decisions().get(f"attack_{index}", {})
    assert fingerprint(attack.workspace, path) == before[path], (
        f"{name} changed {path}: {decision.get('source')}"
    )


def test_a_person_at_the_terminal_can_approve(tmp_path: Path) -> None:
    """Interactive prompts still ask a person, and a yes lets the call through."""
    attack = Attack(tmp_path)
    attack.add(write(".vscode/tasks.json"), command("echo $(touch made)"))
    script, env = attack.script()
    args = ["ask", "x", "--model", f"scripted:{script}", "--deny=run_command(rm *)"]
    with TerminalRun(args, attack.workspace, env) as terminal:
        wait_until(lambda: terminal.count("Allow?") == 1, what="the control-file question")
        terminal.type("y\n")
        wait_until(lambda: terminal.count("Allow?") == 2, what="the unresolved command")
        terminal.type("y\n")
        assert terminal.wait() == 0
    assert (attack.workspace / ".vscode" / "tasks.json").read_text() == "evil\n"
    assert (attack.workspace / "made").exists()


def test_the_workspace_file_can_add_control_files_before_it_is_trusted(tmp_path: Path) -> None:
    """protectedPaths only tightens the gate, so it applies from an untrusted workspace file."""
    attack = Attack(tmp_path)
    settings = attack.workspace / ".agentls" / "settings.json"
    settings.parent.mkdir()
    settings.write_text('{"permissions": {"protectedPaths": ["infra/**"]}}')
    attack.add(write("infra/deploy.sh"), write("src/ok.py"))
    proc = attack.run("--mode=accept-edits", "--yes")
    assert (attack.workspace / "src" / "ok.py").exists(), proc.stderr[-2000:]
    assert not (attack.workspace / "infra" / "deploy.sh").exists()
