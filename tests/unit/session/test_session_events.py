"""Typed session events: every writer's lines are valid events, and old logs still read."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import jsonschema
import pytest

from agentls.contracts.messages import message_to_dict
from agentls.contracts.observer import NullObserver
from agentls.contracts.tooling import Risk, ToolIntent
from agentls.conversation.undo import undo_turn
from agentls.intelligence.after_edits import ProblemsAfterEdits
from agentls.permissions.approvers import AutoApprover
from agentls.permissions.modes import Mode
from agentls.permissions.rules import parse_rule
from agentls.session import events as ev
from agentls.session.events import SESSION_EVENTS, session_event_schema
from agentls.session.log import SessionLog
from agentls.session.reader import parse_event, read_events
from agentls.session.reducer import reduce
from agentls.session.state import SessionState
from agentls.session.transcript import render_transcript
from agentls.workspace.control import config_dir
from agentls.workspace.language import Problem, ProblemReport, Withheld
from agentls.workspace.local import LocalWorkspace
from tests.unit.helpers import call, conversation

FIXTURES = Path(__file__).parent / "fixtures"
V1_LOG = FIXTURES / "v1-session.jsonl"


def valid_lines(path: Path) -> list[str]:
    """The kinds of ``path``'s lines, each checked as strictly as a writer is held to."""
    schema = session_event_schema()
    kinds = []
    for line in path.read_text("utf-8").splitlines():
        event = SESSION_EVENTS.validate_json(line)  # raises: no line is skipped here
        assert event.v == ev.SCHEMA_VERSION and event.seq > 0 and event.ts > 0
        jsonschema.validate(json.loads(line), schema)
        assert SESSION_EVENTS.dump_json(event).decode() == line  # nothing lost, nothing added
        kinds.append(event.kind)
    return kinds


def state_as_json(state: SessionState) -> dict[str, Any]:
    """What the schema 1 release folded a log into, in the form the fixture keeps it."""
    summary = state.context_summary
    return {
        "sessionId": state.session_id,
        "workspace": state.workspace,
        "model": state.model,
        "createdAt": state.created_at,
        "messages": [message_to_dict(m) for m in state.messages],
        "runs": [
            {
                "runId": r.run_id,
                "prompt": r.prompt,
                "startedTs": r.started_ts,
                # Version 1 left out a budget it did not hit; version 2 writes null.
                "result": None
                if r.result is None
                else {k: v for k, v in r.result.items() if not (k == "budget" and v is None)},
                "turns": r.turns,
                "usage": r.usage.to_dict(),
                "costUsd": r.cost_usd,
                "mode": r.mode,
            }
            for r in state.runs
        ],
        "usage": state.usage.to_dict(),
        "costUsd": state.cost_usd,
        "mode": state.mode,
        "lastSeq": state.last_seq,
        "contextSummary": None
        if summary is None
        else {
            "seq": summary.seq,
            "text": summary.text,
            "pinned": summary.pinned,
            "up_to": summary.up_to,
        },
    }


def test_a_schema_1_log_folds_to_the_same_state_and_transcript() -> None:
    """The fixture was written by the schema 1 release (every kind), with what it folded to."""
    events = read_events(V1_LOG)
    assert len(events) == len(V1_LOG.read_text().splitlines())
    newer = {ev.SESSION_RULES, ev.NOTICE, ev.GUIDANCE, ev.HOOK_RUN, ev.REWOUND, ev.PROMPT_COMMAND}
    newer |= {ev.PLAN_UPDATED, ev.PLAN_REVIEWED, ev.STEERED}
    newer |= {ev.PROCESS}
    assert {e.kind for e in events} == set(ev.EVENT_TYPES) - newer  # every kind it had
    expected = json.loads((FIXTURES / "v1-session.state.json").read_text("utf-8"))
    assert state_as_json(reduce(events)) == expected
    transcript = (FIXTURES / "v1-session.transcript.md").read_text("utf-8")
    assert render_transcript(events) == transcript


def test_a_schema_1_line_is_upgraded_to_camel_case() -> None:
    lines = [json.loads(line) for line in V1_LOG.read_text().splitlines()]
    usage = next(line for line in lines if line["kind"] == "usage")
    assert "input_tokens" in usage["usage"]  # as version 1 wrote it
    upgraded = parse_event(usage)
    assert isinstance(upgraded, ev.UsageEvent)
    assert upgraded.usage.input_tokens == usage["usage"]["input_tokens"]
    line = json.loads(SESSION_EVENTS.dump_json(upgraded))
    assert line["v"] == ev.SCHEMA_VERSION and "inputTokens" in line["usage"]
    results = next(
        line for line in lines
        if line["kind"] == "tool_results" and "tool_use_id" in line["message"]["content"][0]
    )  # fmt: skip
    written = json.loads(SESSION_EVENTS.dump_json(parse_event(results)))
    assert {"toolUseId", "isError"} <= set(written["message"]["content"][0])


def test_the_union_covers_every_kind_and_its_schema_names_them() -> None:
    schema = session_event_schema()
    assert set(schema["discriminator"]["mapping"]) == set(ev.EVENT_TYPES)
    for kind, model in ev.EVENT_TYPES.items():
        assert model.__name__ in schema["$defs"] and SESSION_EVENTS.json_schema()
        assert schema["discriminator"]["mapping"][kind].endswith(f"/{model.__name__}")
    constants = {v for k, v in vars(ev).items() if k.isupper() and isinstance(v, str)}
    assert constants - {"SCHEMA_VERSION"} == set(ev.EVENT_TYPES)


async def test_every_writer_writes_valid_events(tmp_path: Path) -> None:
    conv, _, manager = conversation(
        tmp_path,
        [
            {"thinking": "plan", "text": "Writing.",
             "toolCalls": [call("write_file", "w1", path="a.py", content="A = 1\n")],
             "usage": {"input_tokens": 50, "output_tokens": 5, "cache_read_tokens": 7}},
            {"toolCalls": [call("read_file", "r1", path="missing.py"),
                           call("update_plan", "p1", plan=[{"step": "a", "status": "completed"}])]},
            {"toolCalls": [call("run_command", "b1", command="sleep 60", background=True)]},
            {"toolCalls": [call("process_stop", "s1", id="p1")]},  # the process events
            {"text": "Done."},
            {"text": "The summary of it all."},  # the /compact call
        ],
        settings={"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}},
    )  # fmt: skip
    (conv.workspace.root / "AGENTS.md").write_text("Use tabs.\n")  # the guidance event
    commands = config_dir() / "commands"  # the person's own: its allowed-tools apply
    commands.mkdir(parents=True)
    (commands / "write.md").write_text("---\nallowed-tools: Read(docs/**)\n---\nwrite $1\n")
    asked = manager.prompt(conv.workspace.root, "/write a.py")  # the prompt_command event
    assert asked.text == "write a.py"
    steering = SteersOnce(conv, "and keep it short")  # the person, during the first call
    result = await conv.ask(
        asked.text, approver=AutoApprover(), command=asked.command, observer=steering
    )
    assert result.text == "Done."
    conv.set_mode(Mode.PLAN)
    assert conv.save_rules([parse_rule("run_command(pytest *)")]) is not None
    conv.remember_rules(deny=[parse_rule("run_command(rm *)")])
    assert conv.sandbox_notice.give("[note: commands in this session run without a sandbox]")
    assert await conv.compact()
    hook = ProblemsAfterEdits(_problems_found(), lambda _: Risk.WRITE, conv.log.append)
    hook.baseline.versions = {"a.py": "v1", "b.py": "v1"}  # taken before the turn's edits
    assert await hook.after_act("r", 1)
    await undo_turn(
        state_dir=manager.store.state_dir,
        log_path=conv.log.path,
        workspace_root=conv.workspace.root,
        target=LocalWorkspace(conv.workspace.root),
        log=conv.log,
    )
    # A run cut off mid-call, then closed when the session is opened again.
    conv.log.append(ev.RunStarted(run="cut", prompt="go on", mode="default"))
    cut = reduce(read_events(conv.log.path)).messages[1]  # the call to write_file again
    conv.log.append(ev.ModelOutput(run="cut", turn=1, message=cut, stop_reason="tool_use"))
    path = conv.log.path
    manager.close()
    # In plan mode (set above), a plan no one is there to approve.
    proposal = {"toolCalls": [call("propose_plan", "pp", plan="1. do it")]}
    again, _, manager = conversation(tmp_path, [proposal], session_id=path.stem)
    assert (await again.ask("resume", approver=AutoApprover())).text == "1. do it"
    await again.rewind(3, files=False)  # the rewound event
    fork = manager.store.fork(path.stem, None)  # a fork's copied lines
    manager.close()

    kinds = valid_lines(path)
    assert set(kinds) == set(ev.EVENT_TYPES)
    assert "rewound" in valid_lines(manager.store.path_for(fork))


class SteersOnce(NullObserver):
    def __init__(self, conv: Any, text: str) -> None:
        self.conv, self.text = conv, text

    def tool_started(self, turn: int, intent: Any, summary: str) -> None:
        if self.text:
            self.conv.steer(self.text)
            self.text = ""


def _problems_found() -> Any:
    """Language intelligence that found one new problem after a turn's edits."""
    found = [Problem("a.py", 1, "undefined name 'x'", "ruff", "error", "F821")]

    async def version(rel: str) -> str:
        return "v2"  # edited since

    async def check(rels: Any, wait: float, least: str) -> ProblemReport:
        return ProblemReport(found, {}, ["b.py"])

    async def screened(problems: Any, asked: Any) -> tuple[list[Problem], Withheld]:
        return list(problems), Withheld()

    return SimpleNamespace(
        problem_settings=SimpleNamespace(after_edits=True, settle_seconds=0, severity="error"),
        workspace=SimpleNamespace(version=version),
        check=check,
        screen=SimpleNamespace(problems=screened),
        before_changes=lambda listener: None,
    )


def test_append_leaves_the_event_typed_and_stamped(tmp_path: Path) -> None:
    with SessionLog(tmp_path / "s.jsonl") as log:
        intent = ToolIntent("c", "read_file", {"path": "a"})
        event = log.append(ev.ToolIntent(call_id=intent.call_id, name=intent.name,
                                         input=intent.input))  # fmt: skip
    assert isinstance(event, ev.ToolIntent) and event.seq == 1 and event.v == ev.SCHEMA_VERSION
    assert valid_lines(tmp_path / "s.jsonl") == ["tool_intent"]


@pytest.mark.parametrize("field", ["callId", "verdict"])
def test_a_line_missing_a_required_field_is_not_an_event(field: str) -> None:
    line = {"v": 2, "seq": 1, "ts": 1.0, "kind": "decision", "run": None, "turn": None,
            "callId": "c", "verdict": "allow", "source": "s", "answer": None}  # fmt: skip
    del line[field]
    with pytest.raises(ValueError, match="not a readable session event"):
        parse_event(line)
