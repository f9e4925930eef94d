"""What opening a session and starting a run work out once: each kept value follows its
input (other settings, another PATH, another day, another registry) and is never stale."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from agentls.contracts.errors import ConfigError
from agentls.contracts.tooling import Risk
from agentls.conversation import system_prompt as prompt
from agentls.conversation.open_sessions import ConversationManager
from agentls.conversation.run_builder import RunConfig
from agentls.conversation.settings import Settings, load_settings
from agentls.intelligence import config
from agentls.intelligence.config import discover_language_servers, effective_servers
from agentls.permissions.modes import Mode
from agentls.pricing import price_for
from agentls.providers.scripted import ScriptedProvider
from agentls.runtime.registry import ToolRegistry
from agentls.session import events as ev
from agentls.session.reader import read_events
from agentls.session.store import SessionStore
from agentls.tools import BUILTIN_TOOLS
from agentls.workspace.local import LocalWorkspace


def _executable(folder: Path, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / name
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)


def test_the_default_servers_follow_path_and_a_fresh_look(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    _executable(first, "ruff")
    _executable(second, "gopls")
    monkeypatch.setenv("PATH", str(first))

    def runnable() -> set[str]:
        return {c.name for c in effective_servers({}) if c.executable}

    assert runnable() == {"ruff"}
    assert runnable() == {"ruff"}  # kept for this PATH
    monkeypatch.setenv("PATH", str(second))
    assert runnable() == {"gopls"}  # another PATH, another answer
    _executable(second, "ruff")  # installed since: found once the doctor looks again
    assert runnable() == {"gopls"}
    discover_language_servers()
    assert runnable() == {"gopls", "ruff"}
    # The settings' own servers are never taken from what was kept for the defaults.
    turned_off = load_settings({"languageServers": {"ruff": None}}).language_servers
    assert {c.name for c in effective_servers(turned_off) if c.executable} == {"gopls"}
    assert runnable() == {"gopls", "ruff"}
    config.forget_lookups()


def test_the_same_settings_load_as_one_settings_and_other_settings_as_others() -> None:
    data = {"model": "scripted:a", "maxTurns": 7, "permissions": {"deny": ["run_command"]}}
    settings = load_settings(data)
    assert load_settings(dict(data)) is settings
    other = load_settings({**data, "maxTurns": 8})
    assert other is not settings and other.limits.max_turns == 8
    assert other.budget.max_turns == 8 and settings.budget.max_turns == 7
    assert other.to_log()["maxTurns"] == 8 and settings.to_log()["maxTurns"] == 7
    layered = load_settings({"permissions": {"deny": ["edit_file"]}}, base=settings)
    assert [str(r) for r in layered.permissions.rules.deny] == ["run_command", "edit_file"]
    for _ in range(2):  # a mistake is told every time, never kept
        with pytest.raises(ConfigError, match="maxTurns"):
            load_settings({"maxTurns": 0})


def test_a_context_policy_per_settings_and_model() -> None:
    small = load_settings({"contextWindow": 32_768, "compactionThreshold": 0.5})
    assert small.context_policy("scripted:x").window == 32_768
    assert small.context_policy("scripted:x") is small.context_policy("scripted:x")
    assert Settings().context_policy("scripted:x").threshold != 0.5
    sonnet = price_for("anthropic:claude-sonnet-4-5")
    assert sonnet is not None
    assert Settings().context_policy("anthropic:claude-sonnet-4-5").window == sonnet.context_window
    gpt5 = price_for("openai:gpt-5")
    assert gpt5 is not None
    assert Settings().context_policy("openai:gpt-5").window == gpt5.context_window


def test_the_logged_settings_change_with_the_settings() -> None:
    one = load_settings({"mcpServers": {"gh": {"command": "gh", "env": {"TOKEN": "tok-one"}}}})
    two = load_settings({"mcpServers": {"gh": {"command": "gh2", "env": {"TOKEN": "tok-two"}}}})
    assert one.to_log() is one.to_log()
    assert one.to_log()["mcpServers"]["gh"]["command"] == "gh"
    assert two.to_log()["mcpServers"]["gh"]["command"] == "gh2"
    assert "tok-" not in str(one.to_log()) + str(two.to_log())


def test_the_system_prompt_follows_the_day_the_root_and_the_mode(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Day(datetime.date):
        today_is = datetime.date(2031, 1, 2)

        @classmethod
        def today(cls) -> datetime.date:
            return cls.today_is

    monkeypatch.setattr(prompt.datetime, "date", Day)
    text = prompt.system_prompt("/w", Mode.DEFAULT)
    assert "Today is 2031-01-02" in text and "/w" in text
    Day.today_is = datetime.date(2031, 1, 3)
    assert "Today is 2031-01-03" in prompt.system_prompt("/w", Mode.DEFAULT)
    assert "/v" in prompt.system_prompt("/v", Mode.DEFAULT)
    planning = prompt.system_prompt("/w", Mode.PLAN)
    assert "Plan mode is read-only" in planning and "Permission mode: plan" in planning
    config_now = RunConfig.of(Settings(), model_id="scripted:x", root=Path("/w"), mode=Mode.PLAN)
    assert config_now.system == planning


def test_prices_per_model() -> None:
    assert price_for("openai:gpt-4o-mini") is price_for("openai:gpt-4o-mini")
    assert price_for("openai:gpt-4o-mini") != price_for("anthropic:claude-sonnet-4-5")
    assert price_for("openai:llama3.2:3b") is None


def test_a_registry_names_its_write_tools_and_each_modes_offered_tools() -> None:
    registry = ToolRegistry(BUILTIN_TOOLS)
    assert registry.write_tools == {"edit_file", "write_file"} | {
        t.name for t in BUILTIN_TOOLS if t.risk is Risk.WRITE
    }
    reads = [t for t in BUILTIN_TOOLS if t.risk is not Risk.WRITE]
    assert ToolRegistry(reads).write_tools == frozenset()
    assert registry.extended([]).write_tools == registry.write_tools
    for mode in Mode:
        names = registry.spec_names(mode)
        assert names == [spec.name for spec in registry.specs(mode)]
        assert registry.spec_names(mode) is names


def test_a_new_session_records_its_workspace_resolved_once(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    store = SessionStore(tmp_path / "state")
    manager = ConversationManager(store, provider_factory=lambda s: ScriptedProvider([]))
    local = manager.open(LocalWorkspace(tmp_path / "link"), Settings())
    assert local.workspace.root == real.resolve()
    _, given = store.create(tmp_path / "link", "scripted:x")  # not resolved by its caller
    for log in (local.log, given):
        started = read_events(log.path)[0]
        assert isinstance(started, ev.SessionStarted)
        assert started.workspace == str(real.resolve())
        log.close()
    manager.close()
