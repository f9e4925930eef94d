"""The sandbox's mounts: only what commands need, never the host's root or home."""

from __future__ import annotations

import itertools
from pathlib import Path

from agentls.workspace import sandbox
from agentls.workspace.sandbox import SandboxSettings, command_environment


def _make(base: Path, *paths: str) -> None:
    for rel in paths:
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith("/"):
            path.mkdir(exist_ok=True)
        else:
            path.write_text("x\n")


def test_folders_on_path_are_bound_themselves_never_their_parents(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _make(
        tmp_path,
        "home/.pyenv/shims/", "home/.pyenv/libexec/", "home/.pyenv/versions/",
        "home/.pyenv/version", "home/.pyenv/plugins/", "home/.pyenv/pyenv.d/",
        "home/.pyenv/README.md", "home/.cargo/bin/", "home/.cargo/credentials.toml",
        "home/.local/bin/", "home/.local/lib/", "home/.local/share/secret", "home/bin/",
        "home/lib/", "opt/tool/bin/", "opt/tool/lib/", "opt/tool/lib64/", "opt/tool/share/",
        "opt/tool/etc/npmrc", "opt/venv/bin/", "opt/venv/lib/", "opt/venv/pyvenv.cfg",
        "opt/venv/include/", "ws/bin/",
    )  # fmt: skip
    search = ":".join(
        ["/", str(home), str(home / ".pyenv/shims"), str(home / ".cargo/bin"),
         str(home / ".local/bin"), str(home / "bin"), str(tmp_path / "opt/tool/bin"),
         str(tmp_path / "opt/venv/bin"), "relative/bin", str(tmp_path / "ws/bin"), "/usr/bin"]
    )  # fmt: skip
    found = sandbox._tool_paths(search, str(home), str(tmp_path / "ws"))
    assert found == [
        str(home / ".pyenv/shims"), str(home / ".pyenv/libexec"), str(home / ".pyenv/versions"),
        str(home / ".pyenv/version"), str(home / ".pyenv/plugins"), str(home / ".pyenv/pyenv.d"),
        str(home / ".cargo/bin"),
        str(home / ".local/bin"), str(home / ".local/lib"),
        str(home / "bin"),  # HOME is too wide a prefix: no siblings beside ~/bin
        str(tmp_path / "opt/tool/bin"), str(tmp_path / "opt/tool/lib"),
        str(tmp_path / "opt/tool/lib64"),
        str(tmp_path / "opt/venv/bin"), str(tmp_path / "opt/venv/lib"),
        str(tmp_path / "opt/venv/pyvenv.cfg"),
    ]  # fmt: skip


def test_the_real_programs_behind_links_and_interpreter_lines_are_bound(tmp_path: Path) -> None:
    home = tmp_path / "home"
    venv = home / ".local/share/pipx/venvs/black"
    _make(tmp_path, "home/.local/bin/", "home/.local/share/secret", "opt/py/bin/python3",
          "opt/py/lib/python3/os.py", "opt/py/share/doc", "home/.local/share/pipx/venvs/black/lib/",
          "home/.local/share/pipx/venvs/black/pyvenv.cfg", "proj/node_modules/tsls/lib/cli.mjs",
          "proj/node_modules/dep/index.js", "proj/node_modules/.bin/", "proj/secret")  # fmt: skip
    (venv / "bin").mkdir()
    (venv / "bin/python").symlink_to(tmp_path / "opt/py/bin/python3")
    (venv / "bin/black").write_text(f"#!{venv}/bin/python\nimport black\n")
    (venv / "bin/black").chmod(0o755)
    (home / ".local/bin/black").symlink_to(venv / "bin/black")
    (tmp_path / "proj/node_modules/.bin/tsls").symlink_to("../tsls/lib/cli.mjs")
    search = f"{home}/.local/bin:{tmp_path}/proj/node_modules/.bin"
    found = sandbox._tool_paths(search, str(home), str(tmp_path / "ws"))
    assert found == [
        str(home / ".local/bin"),
        str(tmp_path / "proj/node_modules"),  # a package's program needs its packages
        str(venv / "bin"), str(venv / "lib"), str(venv / "pyvenv.cfg"),
        str(tmp_path / "opt/py/bin"), str(tmp_path / "opt/py/lib"),
    ]  # fmt: skip


def test_the_layout_binds_no_host_root(tmp_path: Path) -> None:
    args = sandbox._layout(tmp_path, SandboxSettings(), "/usr/bin:/bin")
    pairs = list(itertools.pairwise(args))
    assert ("--ro-bind", "/") not in pairs and ("--bind", "/") not in pairs
    for private in ("/tmp", "/run", "/var/tmp"):
        assert ("--tmpfs", private) in pairs
    assert "--unshare-net" in args
    assert "--unshare-net" not in sandbox._layout(tmp_path, SandboxSettings(network=True), "")


def test_the_environment_is_the_pass_list_and_sandbox_env() -> None:
    source = {"PATH": "/usr/bin", "HOME": "/h", "LC_ALL": "C", "ANTHROPIC_API_KEY": "k",
              "GITHUB_TOKEN": "t", "LD_PRELOAD": "x", "PYTHONPATH": "p"}  # fmt: skip
    env = command_environment(SandboxSettings(env=(("EXTRA", "1"),)), source)
    assert env == {"PATH": "/usr/bin", "HOME": "/h", "LC_ALL": "C", "EXTRA": "1"}
