"""One composition root: a live run and its replay are built the same way."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from agentls.contracts.outcomes import TerminalReason
from agentls.conversation.run_builder import RunConfig
from agentls.conversation.run_replay import replay_session
from agentls.conversation.settings import load_settings
from agentls.permissions.approvers import AutoApprover
from agentls.permissions.modes import Mode
from agentls.session.events import RunStarted
from tests.unit.helpers import call, conversation, events_of

USAGE = {"input_tokens": 1_000, "output_tokens": 100}  # $0.0045 a call at the scripted price
BUDGET = 0.006  # the first call fits, the second does not


async def test_a_cost_budget_stops_the_replay_where_it_stopped_the_run(tmp_path: Path) -> None:
    conv, provider, _ = conversation(
        tmp_path,
        [
            {"text": "Reading.", "toolCalls": [call("read_file", "c1", path="a.py")],
             "usage": USAGE},
            {"text": "More.", "toolCalls": [call("read_file", "c2", path="a.py")],
             "usage": USAGE},
            {"text": "done"},
        ],
        settings={"maxCostUsd": BUDGET, "maxOutputTokens": 1234},
    )  # fmt: skip
    (tmp_path / "ws" / "a.py").write_text("A = 1\n")
    handle = await conv.start("read a.py", approver=AutoApprover())
    result = await handle.result()
    assert result.reason is TerminalReason.BUDGET_EXCEEDED
    assert result.budget is not None and result.budget.limit_name == "cost_usd"
    assert len(provider.calls) == 2  # the second turn's call never ran

    events = events_of(conv)
    report = await replay_session(events)
    assert report.same, report.describe()
    assert report.runs == 1 and report.calls == 1

    # The replay rebuilt the run with the live run's price, budget and output limit.
    replayed = report.configs[handle.run_id]
    assert replayed == handle.config
    assert replayed.price is not None
    assert replayed.budget.max_cost_usd == BUDGET
    assert replayed.max_output_tokens == 1234


async def test_a_replay_without_the_live_budget_would_diverge(tmp_path: Path) -> None:
    """The budget is what stopped it: the same recording with the limit raised goes on."""
    conv, _, _ = conversation(
        tmp_path,
        [
            {"toolCalls": [call("read_file", "c1", path="a.py")], "usage": USAGE},
            {"toolCalls": [call("read_file", "c2", path="a.py")], "usage": USAGE},
        ],
        settings={"maxCostUsd": BUDGET},
    )
    (tmp_path / "ws" / "a.py").write_text("A = 1\n")
    assert (await conv.ask("read", approver=AutoApprover())).reason is (
        TerminalReason.BUDGET_EXCEEDED
    )
    events = events_of(conv)
    for event in events:
        if isinstance(event, RunStarted):
            event.settings["maxCostUsd"] = 1000.0
    report = await replay_session(events)
    assert report.divergence is not None
    # The raised limit lets the second call run, where the recording stopped.
    assert report.divergence.what == "number of decisions"
    assert (report.divergence.recorded, report.divergence.replayed) == (1, 2)


def test_the_run_config_comes_from_the_settings_the_model_and_the_mode(tmp_path: Path) -> None:
    settings = load_settings(
        {"model": "scripted:test", "maxCostUsd": 2.0, "maxTurns": 7, "maxOutputTokens": 99}
    )
    config = RunConfig.of(settings, model_id="scripted:test", root=tmp_path, mode=Mode.PLAN)
    assert config.mode is Mode.PLAN
    assert config.max_output_tokens == 99
    assert config.budget.max_cost_usd == 2.0 and config.budget.max_turns == 7
    assert config.price is not None
    assert str(tmp_path) in config.system
    unknown = RunConfig.of(settings, model_id="nobody:knows", root=tmp_path, mode=Mode.PLAN)
    assert unknown.price is None
    assert dataclasses.replace(unknown, price=config.price) == config
