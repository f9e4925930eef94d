"""What the protocol models write: camelCase keys, null where there is no value, and
absent only where the schema says a key may be."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from agentls.contracts.outcomes import BudgetOverrun, RunResult, TerminalReason
from agentls.contracts.usage import Usage
from agentls.protocol.commands import AskFinished, AskParams, CancelResult, UndoParams
from agentls.protocol.reports import DoctorReport, ModelInfo, SettingsFiles


def test_fields_are_camel_case_and_nulls_are_written() -> None:
    assert CancelResult(session_id=None, cancelled=False).wire() == {
        "sessionId": None, "cancelled": False
    }  # fmt: skip


def test_an_omittable_key_is_written_only_with_a_value() -> None:
    result = CancelResult(session_id=None, cancelled=True, session_ids=["s1"])
    assert result.wire()["sessionIds"] == ["s1"]
    assert "sessionIds" not in CancelResult(session_id="s", cancelled=True, session_ids=None).wire()


def test_a_key_absent_unless_given_keeps_a_given_null() -> None:
    bare = {"id": None, "provider": None, "keyVariable": None, "keySet": False}
    assert ModelInfo.model_validate(bare).wire() == bare
    with_url = {**bare, "baseUrl": None}
    assert ModelInfo.model_validate(with_url).wire() == with_url


def test_nested_models_write_the_same_way() -> None:
    files = SettingsFiles.model_validate({"user": {"path": "/u.json", "exists": False}})
    assert files.wire() == {"user": {"path": "/u.json", "exists": False}}


def test_a_run_outcome_hides_a_nominal_price() -> None:
    result = RunResult(
        TerminalReason.BUDGET_EXCEEDED, "", Usage(5, 1), 0.25, 1, "spent",
        BudgetOverrun("cost_usd", 0.2, 0.25),
    )  # fmt: skip
    shown = AskFinished.of("s1", "r1", result, show_cost=True).wire()
    assert shown == {"sessionId": "s1", "runId": "r1", **result.to_dict()}
    hidden = AskFinished.of("s1", "r1", result, show_cost=False).wire()
    assert hidden["usage"]["costUsd"] is None and hidden["budget"]["overBy"] == 0.05


def test_parameters_take_camel_case_and_refuse_unknown_keys() -> None:
    params = AskParams.model_validate(
        {"prompt": "hi", "sessionId": "s1",
         "range": {"start": {"line": 1, "character": 0}, "end": {"line": 2, "character": 0}}}
    )  # fmt: skip
    assert (params.session_id, params.range and params.range.end.line, params.wait) == (
        "s1", 2, False
    )  # fmt: skip
    with pytest.raises(ValidationError, match="session"):
        AskParams.model_validate({"prompt": "hi", "session": "s1"})
    with pytest.raises(ValidationError):
        UndoParams.model_validate({"sessionId": "s1", "turn": 0})


def test_a_report_with_a_key_the_model_does_not_know_is_refused() -> None:
    with pytest.raises(ValidationError, match="surprise"):
        DoctorReport.model_validate({"surprise": True})
