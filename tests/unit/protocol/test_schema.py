"""docs/protocol.schema.json is what the models generate, and says what the models write."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from jsonschema import Draft202012Validator
from pydantic import BaseModel, Field

from agentls.protocol.commands import COMMANDS
from agentls.protocol.events import AGENT_EVENT, EVENT_METHOD
from agentls.protocol.schema import build_schema, render

ROOT = Path(__file__).resolve().parents[3]
PUBLISHED = ROOT / "docs" / "protocol.schema.json"
REGENERATE = (
    "python -m agentls.protocol.schema > docs/protocol.schema.json && "
    "node vscode-client/scripts/generate-protocol.mjs"
)


def test_the_published_schema_is_what_the_models_generate() -> None:
    assert PUBLISHED.read_text("utf-8") == render(), f"the models changed: run `{REGENERATE}`"


def test_the_module_prints_the_schema() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "agentls.protocol.schema"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert json.loads(out) == build_schema()


def test_it_is_a_valid_json_schema_naming_every_command_and_the_event() -> None:
    schema = build_schema()
    Draft202012Validator.check_schema(schema)
    assert list(schema["properties"]["commands"]["properties"]) == list(COMMANDS)
    event = schema["properties"]["notifications"]["properties"][EVENT_METHOD]
    assert event == {"$ref": "#/$defs/AgentEvent"}


def validator(definition: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": build_schema()["$defs"]})


def test_the_schema_takes_each_event_kind_as_written_and_refuses_a_missing_field() -> None:
    check = validator("AgentEvent")
    base = {"sessionId": "s1", "runId": "r1", "turn": 1}
    samples: list[dict[str, Any]] = [
        {**base, "kind": "text", "text": "hi"},
        {**base, "kind": "question_closed", "id": "review-1", "answer": "apply"},
        {**base, "kind": "edit_rejected", "path": "a.py", "reason": "rejected by the user"},
    ]
    for sample in samples:
        written = AGENT_EVENT.validate_python(sample).wire()
        assert written == sample
        check.validate(written)
    assert not check.is_valid({**base, "kind": "text"})
    assert not check.is_valid({**base, "kind": "text", "text": "hi", "extra": 1})


def test_a_key_that_may_be_absent_is_not_required_and_never_null() -> None:
    definitions = build_schema()["$defs"]
    finished = definitions["RunFinished"]
    assert "budget" not in finished["required"]
    assert finished["properties"]["budget"] == {
        "$ref": "#/$defs/Budget", "description": "when a budget stopped it"
    }  # fmt: skip
    assert "sessionIds" not in definitions["CancelResult"]["required"]
    # Parameters keep their defaults: they say what a client may leave out.
    assert definitions["AskParams"]["required"] == ["prompt"]
    assert definitions["AskParams"]["properties"]["wait"]["default"] is False


def build_schema_without_log() -> dict[str, Any]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("agentls.protocol.schema.session_events", lambda: None)
        return build_schema()


def test_the_session_log_s_events_join_once_the_session_package_defines_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import agentls.session.events as session_events

    class RunFinished(BaseModel):
        kind: Literal["run_finished"]
        result: dict[str, Any]

    class ModeChanged(BaseModel):
        kind: Literal["mode_changed"]
        mode: str

    union = Annotated[RunFinished | ModeChanged, Field(discriminator="kind")]
    monkeypatch.setattr(session_events, "SessionEvent", union, raising=False)
    schema = build_schema()
    assert schema["properties"]["sessionLog"] == {"$ref": "#/$defs/LogEvent"}
    # Named apart from the agentls/event kinds: a log event may share a name with one.
    assert schema["$defs"]["LogEvent"]["discriminator"]["mapping"] == {
        "run_finished": "#/$defs/LogRunFinished", "mode_changed": "#/$defs/LogModeChanged"
    }  # fmt: skip
    assert schema["$defs"]["LogRunFinished"]["required"] == ["kind", "result"]
    assert schema["$defs"]["RunFinished"] == build_schema_without_log()["$defs"]["RunFinished"]
