"""The doctor's hooks: which are configured, per event, from which settings layer, whether
each would run here and why not, and the entries that do not load.

It reads the settings files as they are (an unapproved workspace file's hooks too, which
never run) and compares them with the hooks the loaded settings give a session, so
"runs" is what a session here would do. It never runs a hook.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from agentls.contracts.errors import ConfigError
from agentls.conversation.settings import Settings
from agentls.conversation.settings_files import (
    WORKSPACE_FILE,
    SettingsFiles,
    read_json,
    user_settings_path,
)
from agentls.hooks.config import EVENTS, HookCommand, HookEntries, HookSet, read_entries
from agentls.workspace.control import managed_settings_path


def hooks_report(
    root: Path | None, files: SettingsFiles, settings: Settings | None, warnings: list[str]
) -> dict[str, Any]:
    """The report's `hooks` part; each entry that does not load is also a warning."""
    managed_only = _managed_only(settings)
    disabled = settings is not None and settings.wire.disable_all_hooks
    sources = _sources(root, files, settings)
    running = Counter(settings.hooks.commands if settings is not None else ())
    configured: list[dict[str, Any]] = []
    problems: list[dict[str, Any]] = []
    for source, path, trusted, entries in sources:
        for hook in entries.commands:
            runs = trusted and running[hook] > 0
            if runs:
                running[hook] -= 1
            why = None
            if not runs:
                why = _why_not(source, trusted, settings, managed_only, disabled)
            configured.append(_entry(hook, source, path, runs, why))
        for where, error in entries.problems:
            problems.append({"source": source, "path": path, "entry": where, "error": error})
            warnings.append(f"{path or 'the editor settings'}: {where} does not load: {error}")
    configured.sort(key=lambda e: EVENTS.index(e["event"]))
    return {
        "disableAllHooks": disabled,
        "allowManagedHooksOnly": managed_only,
        "configured": configured,
        "problems": problems,
    }


Source = tuple[str, str | None, bool, HookEntries]


def _sources(root: Path | None, files: SettingsFiles, settings: Settings | None) -> list[Source]:
    """Each layer's hooks, lowest first: (layer, its file, whether it may apply, entries)."""
    user_path = user_settings_path()
    user = _entries(user_path)
    found: list[Source] = [("user", str(user_path), True, user)]
    from_files = list(user.commands)
    if root is not None:
        path = root / WORKSPACE_FILE
        workspace = _entries(path)
        trusted = path.exists() and files.is_trusted(path)
        found.append(("workspace", str(path), trusted, workspace))
        if trusted:
            from_files += workspace.commands
    if settings is not None:  # what the face layered over the files: the editor's settings
        editor = _unaccounted(HookSet.of(settings.wire.hooks).commands, from_files)
        found.append(("editor", None, True, HookEntries(editor)))
    managed = managed_settings_path()
    found.append(("managed", str(managed), True, _entries(managed, managed=True)))
    return [s for s in found if s[3].commands or s[3].problems]


def _entries(path: Path, *, managed: bool = False) -> HookEntries:
    try:
        data = read_json(path)
    except ConfigError:  # the file's own error is reported with the settings files
        return HookEntries()
    return read_entries((data or {}).get("hooks"), managed=managed)


def _unaccounted(
    loaded: tuple[HookCommand, ...], from_files: list[HookCommand]
) -> tuple[HookCommand, ...]:
    """The loaded hooks no file brought, in order (each file entry accounts for one)."""
    left = Counter(from_files)
    extra: list[HookCommand] = []
    for hook in loaded:
        if left[hook] > 0:
            left[hook] -= 1
        else:
            extra.append(hook)
    return tuple(extra)


def _managed_only(settings: Settings | None) -> bool:
    if settings is not None and settings.managed is not None:
        return settings.managed.policy.wire.allow_managed_hooks_only
    return False


def _why_not(
    source: str, trusted: bool, settings: Settings | None, managed_only: bool, disabled: bool
) -> str:
    if not trusted:
        return "the workspace settings file is not approved (`agentls trust`)"
    if settings is None:
        return "the settings do not load"
    if source != "managed" and managed_only:
        return "the managed settings run only their own hooks (allowManagedHooksOnly)"
    if source != "managed" and disabled:
        return "disableAllHooks is set"
    return "the settings changed since they were loaded"


def _entry(
    hook: HookCommand, source: str, path: str | None, runs: bool, why: str | None
) -> dict[str, Any]:
    return {
        "event": hook.event,
        "matcher": hook.matcher,
        "command": hook.command,
        "timeout": hook.timeout,
        "sandbox": hook.sandbox,
        "source": source,
        "path": path,
        "runs": runs,
        "reason": why,
    }
