"""The sandbox's mounts: only what commands need, never the host's root or home."""

from __future__ import annotations

import itertools
from pathlib import Path

from agentls.workspace import sandbox
from agentls.workspace.sandbox import SandboxSettings, command_environment


def test_folders_on_path_bring_their_install_but_never_home_or_root(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for folder in ("home/.pyenv/shims", "home/.cargo/bin", "home/bin", "opt/tool/bin", "ws/bin"):
        (tmp_path / folder).mkdir(parents=True)
    search = ":".join(
        ["/", str(home), str(home / ".pyenv/shims"), str(home / ".cargo/bin"), str(home / "bin"),
         str(tmp_path / "opt/tool/bin"), "relative/bin", str(tmp_path / "ws/bin"), "/usr/bin"]
    )  # fmt: skip
    found = sandbox._tool_dirs(search, str(home), str(tmp_path / "ws"))
    assert found == [
        str(home / ".pyenv"),
        str(home / ".cargo"),
        str(home / "bin"),
        str(tmp_path / "opt/tool"),
        str(tmp_path / "ws/bin"),
    ]


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
