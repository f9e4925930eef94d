"""The agents measured on the same task, each as it is started and pointed at a fake.

The task: a workspace of ten ~2 KB Python files; each agent's model is scripted to
read them one per turn with the agent's own read tool, then answer. Each agent
runs with a home, config and state folder of its own, its telemetry and update
checks off, and every proxy variable pointing at the loopback guard.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FILES = 10
PROMPT = "Read each of the ten Python files here, one per turn, then say what they hold."
FINAL_TEXT = "Read all ten files: small helper functions."
ANTHROPIC_MODEL = "claude-sonnet-4-5"
CODEX_MODEL = "gpt-5-codex"
QWEN_MODEL = "qwen3-coder-plus"


@dataclass(frozen=True)
class Paths:
    workspace: Path
    home: Path  # this agent's own home, config and state
    agents: Path  # the npm install (node_modules/.bin)
    fake_url: str
    guard_url: str

    def bin(self, name: str) -> str:
        return str(self.agents / "node_modules" / ".bin" / name)


def file_name(index: int) -> str:
    return f"mod_{index}.py"


def make_workspace(root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for i in range(FILES):
        lines = "".join(
            f"def helper_{i}_{k}(value):\n    return value * {k} + {i}  # line {k:03d}\n"
            for k in range(48)
        )
        (root / file_name(i)).write_text(lines[:2048], encoding="utf-8")


def _proxied(paths: Paths) -> dict[str, str]:
    guard = paths.guard_url
    home = str(paths.home)
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": home,
        "XDG_CONFIG_HOME": f"{home}/.config",
        "XDG_CACHE_HOME": f"{home}/.cache",
        "XDG_DATA_HOME": f"{home}/.local/share",
        "XDG_STATE_HOME": f"{home}/.local/state",
        "TMPDIR": f"{home}/tmp",
        "LANG": "C.UTF-8",
        "CI": "1",
        **{name: guard for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy")},
        **{name: "127.0.0.1,localhost" for name in ("NO_PROXY", "no_proxy")},
    }


# --- how each API's request says how many reads are done ------------------------


def results_in(api: str, body: dict[str, Any]) -> int:
    if api == "anthropic":
        return sum(
            1
            for m in body.get("messages") or []
            if isinstance(m.get("content"), list)
            for b in m["content"]
            if isinstance(b, dict) and b.get("type") == "tool_result"
        )
    if api == "chat":
        return sum(1 for m in body.get("messages") or [] if m.get("role") == "tool")
    return sum(1 for i in body.get("input") or [] if i.get("type") == "function_call_output")


def tool_names(api: str, body: dict[str, Any]) -> set[str]:
    tools = body.get("tools") or []
    if api == "chat":
        return {t.get("function", {}).get("name", "") for t in tools}
    return {t.get("name", "") for t in tools}


ReadCall = Callable[[Paths, int], tuple[str, dict[str, Any]]]


@dataclass(frozen=True)
class Agent:
    name: str
    api: str  # anthropic | chat | responses
    read_tool: str
    read_call: ReadCall
    command: Callable[[Paths], list[str]]
    environment: Callable[[Paths], dict[str, str]]
    version: Callable[[Paths], list[str]]
    price_key: str  # the model table's entry for its own model, if it has one
    prepare: Callable[[Paths], None] = field(default=lambda paths: None)
    npm: bool = True
    # Processes that do part of its work outside its own tree (agentls's warm process):
    # their CPU and memory are counted with its own.
    helpers: Callable[[], list[int]] = field(default=lambda: [])
    # Called after the warm-up run: waits for what it started (the warm process) to serve.
    after_warm_up: Callable[[], None] = field(default=lambda: None)


def _agentls_bin() -> str:
    return str(Path(sys.executable).with_name("agentls"))


def _agentls_env(paths: Paths) -> dict[str, str]:
    """Each ask in its own process (no warm process): the cold rows."""
    env = _proxied(paths)
    env["AGENTLS_STATE_DIR"] = str(paths.home / "state")
    env["AGENTLS_WARM"] = "0"
    return env


COLD = "agentls (anthropic, cold)"
DEFAULT = "agentls (anthropic)"


def agentls_anthropic_cold() -> Agent:
    return Agent(
        name=COLD,
        api="anthropic",
        read_tool="read_file",
        read_call=lambda paths, i: ("read_file", {"path": file_name(i)}),
        command=lambda paths: [
            _agentls_bin(),
            "ask",
            PROMPT,
            "--workspace",
            str(paths.workspace),
            "--model",
            f"anthropic:{ANTHROPIC_MODEL}",
            "--yes",
            "--json",
        ],
        environment=lambda paths: {
            **_agentls_env(paths),
            "ANTHROPIC_BASE_URL": paths.fake_url,
            "ANTHROPIC_API_KEY": "bench-key",
        },
        version=lambda paths: [_agentls_bin(), "--version"],
        price_key=f"anthropic:{ANTHROPIC_MODEL}",
        npm=False,
    )


def agentls_openai() -> Agent:
    return Agent(
        name=f"agentls (openai:{CODEX_MODEL}, cold)",
        api="chat",
        read_tool="read_file",
        read_call=lambda paths, i: ("read_file", {"path": file_name(i)}),
        command=lambda paths: [
            _agentls_bin(),
            "ask",
            PROMPT,
            "--workspace",
            str(paths.workspace),
            "--model",
            f"openai:{CODEX_MODEL}",
            "--yes",
            "--json",
        ],
        environment=lambda paths: {
            **_agentls_env(paths),
            "OPENAI_BASE_URL": paths.fake_url,
            "OPENAI_API_KEY": "bench-key",
        },
        version=lambda paths: [_agentls_bin(), "--version"],
        price_key=f"openai:{CODEX_MODEL}",
        npm=False,
    )


_warm_state: list[Path] = []


def warm_state() -> Path:
    """The state folder the warm runs share (their warm process's socket is in it): short,
    as a socket's path must be, and made afresh for each benchmark."""
    if not _warm_state:
        _warm_state.append(Path(tempfile.mkdtemp(prefix="agentls-warm-")))
    return _warm_state[0]


def warm_processes() -> list[int]:
    """The warm process serving the runs, found by its socket's folder on its command line."""
    if not _warm_state:
        return []
    marker = os.fsencode(warm_state())
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                    if b"agentls.cli.warm" in (line := cmdline.read()) and marker in line:
                        found.append(int(entry))
            except OSError:
                continue
    return found


def warm_listening(timeout: float = 180.0) -> None:
    """Until the warm process the warm-up run started listens on its socket."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for path in warm_state().glob("warm-*.sock"):
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(os.fspath(path))
                return
            except OSError:
                pass
            finally:
                probe.close()
        time.sleep(0.05)
    raise RuntimeError("the warm process never listened")


def agentls_anthropic() -> Agent:
    """The same ask as agentls does it by default: served by the warm process the first
    (warm-up) run starts."""
    cold = agentls_anthropic_cold()

    def environment(paths: Paths) -> dict[str, str]:
        env = {
            **cold.environment(paths),
            "AGENTLS_STATE_DIR": str(warm_state()),
            "AGENTLS_WARM_IDLE_SECONDS": "600",
        }
        del env["AGENTLS_WARM"]  # the default
        return env

    return Agent(
        name=DEFAULT, api=cold.api, read_tool=cold.read_tool,
        read_call=cold.read_call, command=cold.command, environment=environment,
        version=cold.version, price_key=cold.price_key, npm=False, helpers=warm_processes,
        after_warm_up=warm_listening,
    )  # fmt: skip


def claude_code() -> Agent:
    def environment(paths: Paths) -> dict[str, str]:
        return {
            **_proxied(paths),
            "ANTHROPIC_BASE_URL": paths.fake_url,
            "ANTHROPIC_API_KEY": "bench-key",
            "CLAUDE_CONFIG_DIR": str(paths.home / ".claude"),
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "DISABLE_TELEMETRY": "1",
            "DISABLE_AUTOUPDATER": "1",
            "DISABLE_ERROR_REPORTING": "1",
        }

    return Agent(
        name="Claude Code",
        api="anthropic",
        read_tool="Read",
        read_call=lambda paths, i: ("Read", {"file_path": str(paths.workspace / file_name(i))}),
        command=lambda paths: [
            paths.bin("claude"),
            "-p",
            PROMPT,
            "--output-format",
            "json",
            "--model",
            ANTHROPIC_MODEL,
            "--allowedTools",
            "Read",
        ],
        environment=environment,
        version=lambda paths: [paths.bin("claude"), "--version"],
        price_key=f"anthropic:{ANTHROPIC_MODEL}",
    )


def codex() -> Agent:
    def prepare(paths: Paths) -> None:
        folder = paths.home / ".codex"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "config.toml").write_text(
            f'model = "{CODEX_MODEL}"\n'
            'model_provider = "fake"\n'
            "check_for_update_on_startup = false\n"
            "[model_providers.fake]\n"
            'name = "fake"\n'
            f'base_url = "{paths.fake_url}"\n'
            'wire_api = "responses"\n'
            'env_key = "FAKE_OPENAI_KEY"\n'
            "[analytics]\n"
            "enabled = false\n",
            encoding="utf-8",
        )

    return Agent(
        name="Codex CLI",
        api="responses",
        read_tool="exec_command",
        # It offers no file-read tool: a read is a command.
        read_call=lambda paths, i: ("exec_command", {"cmd": f"cat {file_name(i)}"}),
        command=lambda paths: [
            paths.bin("codex"),
            "exec",
            "--skip-git-repo-check",
            "--dangerously-bypass-approvals-and-sandbox",
            "-C",
            str(paths.workspace),
            "--json",
            PROMPT,
        ],
        environment=lambda paths: {
            **_proxied(paths),
            "CODEX_HOME": str(paths.home / ".codex"),
            "FAKE_OPENAI_KEY": "bench-key",
        },
        version=lambda paths: [paths.bin("codex"), "--version"],
        price_key=f"openai:{CODEX_MODEL}",
        prepare=prepare,
    )


def qwen_code() -> Agent:
    def prepare(paths: Paths) -> None:
        folder = paths.home / ".qwen"
        folder.mkdir(parents=True, exist_ok=True)
        settings = {
            "usageStatisticsEnabled": False,
            "telemetry": {"enabled": False},
            "privacy": {"usageStatisticsEnabled": False},
            "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
        }
        (folder / "settings.json").write_text(json.dumps(settings), encoding="utf-8")

    return Agent(
        name="Qwen Code",
        api="chat",
        read_tool="read_file",
        read_call=lambda paths, i: (
            "read_file",
            {"absolute_path": str(paths.workspace / file_name(i))},
        ),
        command=lambda paths: [
            paths.bin("qwen"),
            "-p",
            PROMPT,
            "--yolo",
            "--auth-type",
            "openai",
            "--model",
            QWEN_MODEL,
            "--output-format",
            "json",
        ],
        environment=lambda paths: {
            **_proxied(paths),
            "OPENAI_BASE_URL": paths.fake_url,
            "OPENAI_API_KEY": "bench-key",
        },
        version=lambda paths: [paths.bin("qwen"), "--version"],
        price_key="",
        prepare=prepare,
    )


def all_agents() -> list[Agent]:
    return [
        agentls_anthropic(), agentls_anthropic_cold(), agentls_openai(), claude_code(), codex(),
        qwen_code(),
    ]  # fmt: skip
