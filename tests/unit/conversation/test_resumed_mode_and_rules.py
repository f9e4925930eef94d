"""A session opened again from its log (another process, another face) is in the mode it
was set to and keeps the rules its "always" answers added; a mode named at opening wins
and is logged; a settings refresh that leaves the mode setting alone keeps the session's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentls.contracts.decisions import ApprovalAnswer, ApprovalRequest
from agentls.contracts.outcomes import TerminalReason
from agentls.conversation.one_session import Conversation
from agentls.conversation.open_sessions import ConversationManager
from agentls.conversation.settings import load_settings
from agentls.permissions.approvers import DenyAllApprover
from agentls.permissions.modes import Mode
from agentls.permissions.rules import parse_rule
from agentls.providers.scripted import ScriptedProvider
from agentls.session import events as ev
from agentls.session.reader import read_events
from agentls.session.store import SessionStore
from agentls.workspace.local import LocalWorkspace
from tests.unit.helpers import Gates, call, conversation, make_tools, one_session_twice


class AlwaysAllow:
    person = True
    reason = ""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer:
        self.asked.append(request.call_id)
        return ApprovalAnswer.ALLOW_ALWAYS


def reopened(
    tmp_path: Path,
    session_id: str,
    turns: list[dict[str, Any]],
    *,
    mode: Mode | None = None,
    settings: dict[str, Any] | None = None,
) -> Conversation:
    """The session opened by another manager, as another process (or face) opens it."""
    provider = ScriptedProvider(turns)
    manager = ConversationManager(
        SessionStore(tmp_path / "state"),
        tools=make_tools(Gates()),
        provider_factory=lambda s: provider,
    )
    loaded = load_settings({"model": "scripted:test", **(settings or {})})
    return manager.open(LocalWorkspace(tmp_path / "ws"), loaded, session_id, mode=mode)


def modes_logged(conv: Conversation) -> list[str]:
    return [e.mode for e in read_events(conv.log.path) if isinstance(e, ev.ModeChanged)]


async def test_a_session_set_to_plan_is_in_plan_when_opened_again(tmp_path: Path) -> None:
    first, _, manager = conversation(tmp_path, [], tools=make_tools(Gates()))
    first.set_mode(Mode.PLAN)
    manager.close()
    write = [{"toolCalls": [call("wait_write", "w1", name="x")]}, {"text": "refused"}]
    again = reopened(tmp_path, first.session_id, write)
    assert again.policy.mode is Mode.PLAN
    result = await again.ask("write it", approver=DenyAllApprover())
    assert result.reason is TerminalReason.COMPLETED
    (observation,) = [e for e in read_events(again.log.path) if isinstance(e, ev.ObservationEvent)]
    assert "not available in plan mode" in observation.content  # never ran


async def test_a_mode_named_at_opening_wins_and_is_logged(tmp_path: Path) -> None:
    first, _, manager = conversation(tmp_path, [])
    first.set_mode(Mode.PLAN)
    manager.close()
    again = reopened(tmp_path, first.session_id, [], mode=Mode.ACCEPT_EDITS)
    assert again.policy.mode is Mode.ACCEPT_EDITS
    assert modes_logged(again) == ["plan", "accept-edits"]
    again.close()
    same = reopened(tmp_path, first.session_id, [], mode=Mode.ACCEPT_EDITS)
    assert modes_logged(same) == ["plan", "accept-edits"]  # no change, nothing logged


async def test_always_allow_is_kept_when_the_session_is_opened_again(tmp_path: Path) -> None:
    shout = [{"toolCalls": [call("shout", "s1", text="hi")]}, {"text": "shouted"}]
    first, _, manager = conversation(tmp_path, shout, tools=make_tools(Gates()))
    approver = AlwaysAllow()
    await first.ask("shout", approver=approver)
    assert approver.asked == ["s1"]
    manager.close()
    logged = [e for e in read_events(first.log.path) if isinstance(e, ev.SessionRules)]
    assert [e.allow for e in logged] == [["shout(hi)"]]
    again = reopened(tmp_path, first.session_id, [{"toolCalls": [call("shout", "s2", text="hi")]},
                                                  {"text": "again"}])  # fmt: skip
    asked_again = AlwaysAllow()
    result = await again.ask("shout again", approver=asked_again)
    assert result.reason is TerminalReason.COMPLETED and asked_again.asked == []


async def test_session_deny_rules_are_kept_and_outlive_a_settings_refresh(tmp_path: Path) -> None:
    first, _, manager = conversation(tmp_path, [], tools=make_tools(Gates()))
    first.remember_rules(deny=[parse_rule("shout(hi)")])
    manager.close()
    shout = [{"toolCalls": [call("shout", "s1", text="hi")]}, {"text": "denied"}]
    again = reopened(tmp_path, first.session_id, shout, settings={"mode": "bypass"})
    again.apply_settings(load_settings({"model": "scripted:test", "mode": "bypass"}))
    await again.ask("shout", approver=AlwaysAllow())
    (decision,) = [e for e in read_events(again.log.path) if isinstance(e, ev.Decision)]
    assert decision.verdict.value == "deny" and "deny rule shout(hi)" in decision.source


async def test_a_refresh_keeps_the_sessions_mode_until_the_mode_setting_changes(
    tmp_path: Path,
) -> None:
    first, _, manager = conversation(tmp_path, [])
    first.set_mode(Mode.PLAN)
    manager.close()
    again = reopened(tmp_path, first.session_id, [])
    again.apply_settings(load_settings({"model": "scripted:test", "compaction": False}))
    assert again.policy.mode is Mode.PLAN
    again.apply_settings(load_settings({"model": "scripted:test", "mode": "accept-edits"}))
    assert again.policy.mode is Mode.ACCEPT_EDITS and modes_logged(again)[-1] == "accept-edits"


async def test_a_mode_another_process_set_is_taken_at_the_next_run(tmp_path: Path) -> None:
    first, second, _ = one_session_twice(tmp_path, ["second done"])
    await first.ask("one")  # holds the session for its run, then lets it go
    second.set_mode(Mode.PLAN)
    assert first.policy.mode is Mode.DEFAULT
    await first.ask("two")
    assert first.policy.mode is Mode.PLAN
    started = [e for e in read_events(first.log.path) if isinstance(e, ev.RunStarted)]
    assert [e.mode for e in started] == ["default", "plan"]


async def test_a_mode_set_while_another_process_runs_is_logged_by_the_next_run(
    tmp_path: Path,
) -> None:
    gates = Gates()
    turns = [{"toolCalls": [call("wait_read", "w", name="g")]}, {"text": "ok"}]
    first, _, _ = conversation(tmp_path, turns, tools=make_tools(gates))
    provider = ScriptedProvider([{"text": "second"}])
    other = ConversationManager(
        SessionStore(tmp_path / "state"),
        tools=make_tools(gates),
        provider_factory=lambda s: provider,
    )
    second = other.open(
        LocalWorkspace(tmp_path / "ws"), load_settings({"model": "scripted:test"}), first.session_id
    )
    entered, release = gates.pair("g")
    handle = await first.start("wait")
    await entered.wait()
    second.set_mode(Mode.PLAN)  # the session is busy elsewhere: not logged yet
    release.set()
    await handle.result()
    assert "plan" not in modes_logged(first)
    await second.ask("go on")
    assert modes_logged(second) == ["plan"]
    third = reopened(tmp_path, first.session_id, [])
    assert third.policy.mode is Mode.PLAN
