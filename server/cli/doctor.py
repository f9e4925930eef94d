"""`agentls doctor`: what blocks or weakens the next ask, for people and scripts.

Exit status 0 when an ask could start, 2 (the configuration-error status) when
something blocks it: no key for the model, a settings file that does not load.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from agentls.cli import warm
from agentls.cli.visible import json_visible, say, visible
from agentls.contracts.errors import ConfigError
from agentls.contracts.outcomes import EXIT_USAGE
from agentls.conversation.doctor import build_report
from agentls.conversation.settings import Settings
from agentls.conversation.settings_files import SettingsFiles
from agentls.conversation.settings_layers import SettingsLayer
from agentls.session.store import default_state_dir


def run_doctor(args: argparse.Namespace) -> int:
    root = Path(args.workspace).expanduser()
    if not root.is_dir():
        say(f"workspace {root} is not a directory")
        return EXIT_USAGE
    root = root.resolve()
    state_dir = default_state_dir()
    settings = _with_model_flag(root, state_dir, args.model) if args.model else None
    report = build_report(root, state_dir, settings)
    report["warmProcess"] = warm.status()  # the command line's own: no other face has one
    if args.json:
        print(json_visible(json.dumps(report, indent=2, ensure_ascii=False)))
    else:
        print(visible(render(report)))  # settings, errors and names are echoed
    return 0 if report["ok"] else EXIT_USAGE


def _with_model_flag(root: Path, state_dir: Path, model: str) -> Settings | None:
    """The files' settings with --model on top; None lets the report name the broken file."""
    try:
        return SettingsFiles(state_dir).load(root, SettingsLayer({"model": model})).settings
    except (ConfigError, ValueError):
        return None


def _yes(flag: bool | None, yes: str = "yes", no: str = "no") -> str:
    return yes if flag else no


def render(report: dict[str, Any]) -> str:
    model = report["model"]
    if model["keySet"] is None:
        key = "no key needed"
    else:
        key = f"{model['keyVariable']} {_yes(model['keySet'], 'is set', 'is NOT set')}"
    rg = report["ripgrep"]
    rows = [
        (
            "agentls",
            f"{report['version']} (Python {report['python']['version']}, "
            f"{report['python']['executable']})",
        ),
        ("workspace", report["workspace"] or "-"),
        (
            "model",
            f"{model['id'] or '-'}: {key}"
            + (f", base URL {model['baseUrl']}" if model.get("baseUrl") else ""),
        ),
    ]
    if model.get("contextWindow"):
        window = model["contextWindow"]
        rows.append(("context window", f"{window['tokens']:,} tokens ({window['source']})"))
    rows += [
        (
            "ripgrep",
            f"{rg['path']} {rg['version'] or ''}".strip()
            if rg["found"]
            else "not found (slower search)",
        ),
        ("sandbox", f"{_yes(report['sandbox']['on'], 'on', 'off')}: {report['sandbox']['detail']}"),
        ("state", report["folders"]["state"]),
        ("config", report["folders"]["config"]),
    ]
    for scope, state in report["settings"].items():
        text = f"{state['path']}: " + ("present" if state["exists"] else "none")
        if state.get("trusted") is not None:
            text += ", " + _yes(state["trusted"], "approved", "NOT approved (agentls trust)")
        if state.get("inForce"):
            text += ", IN FORCE: " + (", ".join(state["enforces"]) or "no restriction")
            if state["overrides"]:
                text += "; overrides " + "; ".join(state["overrides"])
        if "error" in state:
            text += f", ERROR: {state['error']}"
        rows.append((f"{scope} settings", text))
    telemetry = report["telemetry"]
    rows.append((
        "telemetry",
        f"on: {telemetry['protocol']} to {telemetry['endpoint']}"
        + (", with content (masked)" if telemetry["logContent"] else "")
        + ("" if telemetry["exporting"] else ", but it cannot export here")
        if telemetry["enabled"] else "off",
    ))  # fmt: skip
    guidance = report["instructions"]
    files = [
        f"{f['path']} ({f['bytes']} B{', cut' if f['cut'] else ''})" for f in guidance["files"]
    ]
    count = guidance["memories"]
    memories = f"{count} {'memory' if count == 1 else 'memories'}"
    rows.append((
        "instructions",
        (", ".join(files) or "no AGENTS.md here") + f"; {memories}"
        if guidance["enabled"] else "off",
    ))  # fmt: skip
    if "warmProcess" in report:
        rows.append(("warm process", _warm(report["warmProcess"])))
    rows.append(("MCP servers", ", ".join(report["mcpServers"]) or "none configured"))
    servers = [
        f"{s['name']} {s['version'] or ''}".strip()
        for s in report["languageServers"]
        if s["wouldRun"]
    ]
    rows.append(("language servers", ", ".join(servers) or "none would run"))
    for server in report["languageServers"]:
        if not server["wouldRun"]:
            install = f"; install it: {server['install']}" if server["install"] else ""
            rows.append((f"  {server['name']}", f"not used: {server['reason']}{install}"))
    editors = [f"{e['editor']} {e['version'] or '?'} ({e['path']})" for e in report["editors"]]
    rows.append(("editors", "; ".join(editors) or "no agentls editor client found"))
    width = max(len(name) for name, _ in rows)
    lines = [f"{name:<{width}}  {value}" for name, value in rows]
    lines += [f"warning: {w}" for w in report["warnings"]]
    lines += [f"BLOCKING: {b}" for b in report["blocking"]]
    lines.append("ready to ask" if report["ok"] else "not ready: fix what is BLOCKING above")
    return "\n".join(lines)


def _warm(state: dict[str, Any]) -> str:
    """Whether `agentls ask` is served warm here, and how to stop it."""
    if not state["enabled"]:
        return f"off ({warm.SWITCH}=0): every ask starts its own process"
    if state["unusable"]:
        return f"not used: {state['unusable']}"
    ends = f"ends after {state['idleSeconds']:g} s without an ask"
    pid = state["servingPid"]
    now = f"serving asks (pid {pid})" if pid else "none running: the next ask starts one"
    return f"{now}, {ends}; {warm.SWITCH}=0 turns it off"
