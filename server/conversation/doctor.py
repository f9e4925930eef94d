"""What a person needs to know before the first ask: one report for every face.

`agentls doctor` prints it, the language server returns it from `agentls.doctor`,
and the editors show it. It reads the environment and the settings files and
runs a few `--version` probes; it never starts an MCP server, never runs a hook and
never shows a key's value, only whether one is set: every string in it is masked as
tool output is (a URL's password in a base URL, a token in a server's command).
`blocking` lists what would stop an ask (a managed settings file that does not load
among them); it says whether a managed policy is in force and what it overrides, where
telemetry goes, and which hooks would run (doctor_hooks.py).
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

from agentls import __version__
from agentls.context.policy import choose_window, needs_server_window
from agentls.contracts.errors import ConfigError
from agentls.conversation.command_files import command_listing, load_commands
from agentls.conversation.doctor_hooks import hooks_report
from agentls.conversation.guidance import load_guidance
from agentls.conversation.reasoning import resolve_reasoning
from agentls.conversation.settings import Settings, masked_data
from agentls.conversation.settings_files import (
    WORKSPACE_FILE,
    SettingsFiles,
    read_json,
    user_settings_path,
)
from agentls.conversation.settings_managed import read_managed
from agentls.intelligence import ServerStatus, describe_language_servers, missing_here
from agentls.memory.instructions import InstructionsWire
from agentls.pricing import traits_for
from agentls.providers.windows import learn_window
from agentls.runtime.registry import ToolRegistry
from agentls.telemetry.config import TelemetryConfig
from agentls.tools import BUILTIN_TOOLS
from agentls.workspace.control import managed_settings_path
from agentls.workspace.filesearch import ripgrep_path
from agentls.workspace.sandbox import bwrap_problem
from agentls.workspace.sandbox import describe as describe_sandbox

# gopls answers `version`, the rest `--version`; the pyright language servers have no
# version flag, but their command-line twin in the same folder has.
_VERSION_ARGS = {"gopls": ["version"]}
_VERSION_TWIN = {"basedpyright-langserver": "basedpyright", "pyright-langserver": "pyright"}
_PROBE_SECONDS = 5.0
_VERSION_RE = re.compile(r"\d+\.\d+(?:\.\d+)?(?:[-.+\w]*)?")
_HEADER_VERSION = re.compile(r"^;+\s*Version:\s*(\S+)", re.MULTILINE)
_LUA_VERSION = re.compile(r"""["']([0-9][^"']*)["']""")


def build_report(
    root: Path | None, state_dir: Path, settings: Settings | None = None
) -> dict[str, Any]:
    """The whole report as JSON-ready data; ``settings`` defaults to the files' own."""
    blocking: list[str] = []
    warnings: list[str] = []
    files = SettingsFiles(state_dir)
    settings_part = _settings_files(root, files, blocking, warnings)
    if settings is None:
        settings = _settings_from_files(root, files, blocking)
    model = _model(settings, blocking)
    if settings is not None:
        model["contextWindow"] = _context_window(settings, state_dir)
        model["reasoning"] = _reasoning(settings, blocking)
        model["images"] = _takes_images(settings.model.id)
    ripgrep = _ripgrep(warnings)
    configured = settings.language_servers if settings is not None else None
    warnings += missing_here(root, configured)  # looks on PATH afresh
    language_servers = [_language_server(s) for s in describe_language_servers(configured)]
    sandbox = _sandbox(settings, warnings)
    settings_part["managed"] = _managed(settings, blocking)
    report: dict[str, Any] = {
        "version": __version__,
        "python": {"version": platform.python_version(), "executable": sys.executable},
        "workspace": str(root) if root is not None else None,
        "model": model,
        "ripgrep": ripgrep,
        "sandbox": sandbox,
        "folders": {"state": str(state_dir), "config": str(user_settings_path().parent)},
        "settings": settings_part,
        "telemetry": _telemetry(settings, warnings),
        "instructions": _instructions(root, state_dir, settings, warnings),
        "commands": _commands(root, files, warnings),
        "hooks": hooks_report(root, files, settings, warnings),
        "mcpServers": sorted(settings.mcp_servers) if settings is not None else [],
        "languageServers": language_servers,
        "editors": editor_integrations(),
        "blocking": blocking,
        "warnings": warnings,
        "ok": not blocking,
    }
    return cast(dict[str, Any], masked_data(report))


def _settings_files(
    root: Path | None, files: SettingsFiles, blocking: list[str], warnings: list[str]
) -> dict[str, Any]:
    user_path = user_settings_path()
    part: dict[str, Any] = {"user": _file_state(user_path, blocking)}
    if root is not None:
        path = root / WORKSPACE_FILE
        state = _file_state(path, blocking)
        state["trusted"] = files.is_trusted(path) if state["exists"] else None
        if state["exists"] and not state["trusted"] and "error" not in state:
            warnings.append(
                f"{path} is not approved: its allow rules, looser modes, MCP servers and hooks are "
                f"ignored until `agentls trust --workspace {root}`"
            )
        part["workspace"] = state
    return part


def _managed(settings: Settings | None, blocking: list[str]) -> dict[str, Any]:
    """The machine's managed settings: whether they are in force, and what they override."""
    path = managed_settings_path()
    state: dict[str, Any] = {"path": str(path), "exists": os.path.lexists(path)}
    try:
        policy = read_managed(path)
    except ConfigError as exc:
        state |= {"inForce": False, "enforces": [], "overrides": [], "error": str(exc)}
        if str(exc) not in blocking:
            blocking.append(str(exc))
        return state
    managed = settings.managed if settings is not None else None
    state["inForce"] = policy is not None
    state["enforces"] = list(policy.enforces()) if policy is not None else []
    state["overrides"] = list(managed.overrides) if managed is not None else []
    return state


def _instructions(
    root: Path | None, state_dir: Path, settings: Settings | None, warnings: list[str]
) -> dict[str, Any]:
    """The instruction files and memories an ask at the root would be given."""
    wire = settings.wire.instructions if settings is not None else InstructionsWire()
    if root is None:
        return {"enabled": wire.enabled, "files": [], "leftOut": [], "memories": 0}
    guidance = load_guidance(root, None, wire, state_dir)
    warnings.extend(guidance.warnings)
    found = guidance.instructions
    return {
        "enabled": wire.enabled,
        "files": [
            {"path": f.shown_as, "bytes": f.size, "sha256": f.sha256, "cut": f.cut}
            for f in found.files
        ],
        "leftOut": list(found.left_out),
        "memories": len(guidance.memory_ids),
    }


def _commands(root: Path | None, files: SettingsFiles, warnings: list[str]) -> dict[str, Any]:
    """The prompt commands an ask here may name; files skipped are warnings."""
    catalog = load_commands(root, files, ToolRegistry(BUILTIN_TOOLS))
    warnings.extend(f"command file {problem}" for problem in catalog.problems)
    warnings.extend(note for command in catalog.commands for note in command.notes)
    return command_listing(catalog)


def _telemetry(settings: Settings | None, warnings: list[str]) -> dict[str, Any]:
    """Where runs would be exported (never the headers' values)."""
    config = settings.telemetry if settings is not None else TelemetryConfig()
    problem = config.problem() if config.enabled else None
    if problem is not None:
        warnings.append(f"telemetry is enabled but cannot export: {problem}")
    return {
        "enabled": config.enabled,
        "endpoint": config.resolved_endpoint() if config.enabled else None,
        "protocol": config.resolved_protocol(),
        "logContent": config.log_content,
        "exporting": config.enabled and problem is None,
    }


def _file_state(path: Path, blocking: list[str]) -> dict[str, Any]:
    state: dict[str, Any] = {"path": str(path), "exists": path.exists()}
    try:
        read_json(path)
    except ConfigError as exc:
        state["error"] = str(exc)
        blocking.append(str(exc))
    return state


def _settings_from_files(
    root: Path | None, files: SettingsFiles, blocking: list[str]
) -> Settings | None:
    try:
        return files.load(root).settings
    except ConfigError as exc:
        if str(exc) not in blocking:
            blocking.append(str(exc))
        return None
    except ValueError as exc:  # a setting that does not validate
        blocking.append(f"the settings are not valid: {exc}")
        return None


def _model(settings: Settings | None, blocking: list[str]) -> dict[str, Any]:
    if settings is None:
        return {"id": None, "provider": None, "keyVariable": None, "keySet": False}
    model = settings.model.id
    provider, _, name = model.partition(":")
    info: dict[str, Any] = {"id": model, "provider": provider}
    if provider == "anthropic":
        var = next((v for v in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN") if _set(v)), None)
        info |= {"keyVariable": var or "ANTHROPIC_API_KEY", "keySet": var is not None}
        info["baseUrl"] = os.environ.get("ANTHROPIC_BASE_URL") or None
        if var is None:
            blocking.append(f"{model} needs an API key: set ANTHROPIC_API_KEY")
    elif provider == "openai":
        url = settings.model.base_url or os.environ.get("OPENAI_BASE_URL") or None
        info |= {"keyVariable": "OPENAI_API_KEY", "keySet": _set("OPENAI_API_KEY"), "baseUrl": url}
        if not info["keySet"] and url is None:
            blocking.append(
                f"{model} needs OPENAI_API_KEY, or a local server's URL in "
                "OPENAI_BASE_URL or the baseUrl setting"
            )
    elif provider == "scripted":
        info |= {"keyVariable": None, "keySet": None}
        from agentls.providers.scripted import BUILTIN_SCRIPTS

        if name not in BUILTIN_SCRIPTS and not Path(name).expanduser().is_file():
            blocking.append(f"{model}: no script file at {Path(name).expanduser()}")
    else:
        info |= {"keyVariable": None, "keySet": None}
        blocking.append(f"unknown model provider {provider!r} in {model!r}")
    return info


def _context_window(settings: Settings, state_dir: Path) -> dict[str, Any]:
    """The window a run would use and where it came from; a model only its server can
    speak for is looked up as a session would (remembered, or the server asked)."""
    model = settings.model.id
    server = None
    if model.startswith("openai:") and needs_server_window(model, settings.context.window):
        url = settings.model.base_url or os.environ.get("OPENAI_BASE_URL") or None
        server = learn_window(url, model.partition(":")[2], state_dir)
    tokens, source = choose_window(model, settings.context.window, server)
    return {"tokens": tokens, "source": source}


def _reasoning(settings: Settings, blocking: list[str]) -> dict[str, Any]:
    """The reasoning level a run would ask for, and where it came from."""
    model = settings.model
    try:
        resolved = resolve_reasoning(
            model.reasoning, model.id, answer_tokens=model.max_output_tokens,
            tool_choice=model.tool_choice,
        )  # fmt: skip
    except ConfigError as exc:
        blocking.append(str(exc))
        return {"level": model.reasoning, "chosen": True, "detail": f"refused: {exc}"}
    return {"level": resolved.level, "chosen": resolved.chosen, "detail": resolved.describe()}


def _takes_images(model_id: str) -> bool:
    traits = traits_for(model_id)
    return traits is not None and traits.images


def _set(var: str) -> bool:
    return bool(os.environ.get(var, "").strip())


def _ripgrep(warnings: list[str]) -> dict[str, Any]:
    path = ripgrep_path()
    if path is None:
        warnings.append("ripgrep (rg) is not on PATH: search and listing use a slower fallback")
        return {"found": False, "path": None, "version": None}
    return {"found": True, "path": path, "version": probe_version([path, "--version"])}


def _sandbox(settings: Settings | None, warnings: list[str]) -> dict[str, Any]:
    sandbox = settings.sandbox if settings is not None else None
    problem = bwrap_problem()
    if sandbox is None:
        return {
            "on": False,
            "detail": "unknown: the settings do not load",
            "bwrap": problem is None,
        }
    on = sandbox.enabled and problem is None
    if not on:
        warnings.append(
            "commands and language servers run without a sandbox (with the minimal"
            f" environment only): {describe_sandbox(sandbox)}"
        )
    return {"on": on, "detail": describe_sandbox(sandbox), "bwrap": problem is None}


def _language_server(server: ServerStatus) -> dict[str, Any]:
    path, version = server.executable, None
    if path is not None:
        command = Path(server.command).name
        program = path
        if command in _VERSION_TWIN:
            program = str(Path(path).with_name(_VERSION_TWIN[command]))
        version = probe_version([program, *_VERSION_ARGS.get(command, ["--version"])])
    return {
        "name": server.name,
        "command": server.command,
        "filePatterns": list(server.file_patterns),
        "found": path is not None,
        "path": path,
        "version": version,
        "wouldRun": server.would_run,
        "reason": server.why_not or None,
        "install": server.install or None,
    }


def probe_version(argv: list[str]) -> str | None:
    """The first version-looking word a program prints, or None (bounded in time)."""
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=_PROBE_SECONDS,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    found = _VERSION_RE.search(done.stdout or done.stderr or "")
    return found.group(0) if found else None


def editor_integrations(home: Path | None = None) -> list[dict[str, Any]]:
    """agentls's editor clients installed in the usual places, with their versions."""
    home = home or Path.home()
    data = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    found: list[dict[str, Any]] = []
    vscode = (".vscode", ".vscode-oss", ".vscode-server", ".vscode-insiders", ".cursor")
    vscode_dirs = [home / d / "extensions" for d in vscode] + [data / "code-server/extensions"]
    for base in vscode_dirs:
        for ext in sorted(base.glob("agentls.agentls-*")):
            version = _package_json_version(ext / "package.json")
            found.append({"editor": "vscode", "path": str(ext), "version": version})
    nvim = data / "nvim"
    nvim_roots = [*nvim.glob("lazy/agentls*"), *nvim.glob("site/pack/*/*/agentls*")]
    for root in sorted(nvim_roots):
        for file in (
            root / "lua/agentls/version.lua",
            root / "editors/neovim/lua/agentls/version.lua",
        ):
            if file.is_file():
                found.append(
                    {
                        "editor": "neovim",
                        "path": str(file.parents[2]),
                        "version": _first_match(_LUA_VERSION, file),
                    }
                )
                break
    for emacs in (home / ".emacs.d", config / "emacs"):
        for el in sorted(
            [*emacs.glob("elpa/agentls-*/agentls.el"), *emacs.glob("elpa/agentls/**/agentls.el")]
        ):
            found.append(
                {
                    "editor": "emacs",
                    "path": str(el.parent),
                    "version": _first_match(_HEADER_VERSION, el),
                }
            )
    return found


def _package_json_version(path: Path) -> str | None:
    import json

    try:
        version = json.loads(path.read_text("utf-8")).get("version")
    except (OSError, ValueError, AttributeError):
        return None
    return str(version) if version else None


def _first_match(pattern: re.Pattern[str], path: Path) -> str | None:
    try:
        found = pattern.search(path.read_text("utf-8", errors="replace"))
    except OSError:
        return None
    return found.group(1) if found else None
