"""Running hook commands: as approved commands run, with their input on stdin.

A hook gets the minimal environment commands get (the pass-list and `sandboxEnv`) plus
``AGENTLS_PROJECT_DIR`` and ``CLAUDE_PROJECT_DIR`` (the workspace root), runs in the
workspace root inside the sandbox (where the session's commands would: control files
read-only, no network unless the settings allow it) unless its entry says
``"sandbox": false``, and is killed with its process group at its timeout. Files its
command names by absolute path outside the workspace (its own script) are shown to it
read-only in the sandbox.
"""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from agentls.hooks.config import HookCommand, HookSet
from agentls.hooks.outcome import HookResult
from agentls.workspace import sandbox
from agentls.workspace.process import run_with_input, shell_argv
from agentls.workspace.sandbox import SandboxSettings

OUTPUT_LIMIT = 16_000  # bytes of stdout and of stderr kept from each hook run


class LiveHooks:
    """The session's hooks, run for real."""

    def __init__(
        self,
        hooks: Callable[[], HookSet],
        root: Path,
        sandbox_settings: Callable[[], SandboxSettings],
    ) -> None:
        self._hooks = hooks  # the session's, as its settings change
        self.root = root
        self._sandbox = sandbox_settings

    def has(self, event: str) -> bool:
        return self._hooks().has(event)

    def matching(
        self, event: str, names: Sequence[str], call_id: str | None, turn: int | None
    ) -> tuple[HookCommand, ...]:
        return self._hooks().matching(event, names)

    async def run(self, hook: HookCommand, payload: dict[str, Any]) -> HookResult:
        started = time.monotonic()
        settings = self._sandbox()
        try:
            env, prefix = await asyncio.to_thread(self._setup, hook, settings)
            if prefix is None and hook.sandbox and settings.required:
                why = sandbox.bwrap_problem() or "bubblewrap is not on PATH"
                return HookResult(
                    None, failure=f"did not run: the sandbox is required and cannot start ({why})"
                )
            argv = [*(prefix or ()), *shell_argv(hook.command, self.root)]
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8", "replace")
            done = await run_with_input(argv, self.root, env, data, hook.timeout, OUTPUT_LIMIT)
        except OSError as exc:
            return HookResult(None, failure=f"did not start: {exc}", duration_ms=_since(started))
        return HookResult(
            done.exit_code, done.stdout, done.stderr, done.timed_out,
            duration_ms=_since(started),
        )  # fmt: skip

    def _setup(
        self, hook: HookCommand, settings: SandboxSettings
    ) -> tuple[dict[str, str], list[str] | None]:
        """The hook's environment and sandbox (a walk of the workspace: on a thread)."""
        env = sandbox.command_environment(settings, os.environ)
        env["AGENTLS_PROJECT_DIR"] = env["CLAUDE_PROJECT_DIR"] = str(self.root)
        if not hook.sandbox:
            return env, None
        prefix = sandbox.sandbox_prefix(
            self.root, settings, env.get("PATH", ""), readable=named_files(hook.command, self.root)
        )
        return env, prefix


def named_files(command: str, root: Path) -> list[str]:
    """The existing files outside ``root`` a command line names by absolute path (or ~/)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return []
    found: list[str] = []
    for word in words:
        path = os.path.expanduser(word) if word.startswith("~/") else word
        if not os.path.isabs(path) or Path(path).is_relative_to(root) or path in found:
            continue
        if os.path.isfile(path):
            found.append(path)
    return found


def _since(started: float) -> int:
    return int((time.monotonic() - started) * 1000)
