"""Plans at the command line: the model's checklist as a block on stderr and in `agentls
show`; a proposed plan answered at a real terminal (switch to default, or keep planning
with a note), and with no one to ask (--yes, or no terminal) the plan is the answer and
nothing leaves plan mode. The scripted model checks each next request's tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.terminal import TerminalRun
from tests.helpers import script, wait_until

PLAN = "# Plan\n1. Add shout() to greet.py\n2. Run it"
STEPS = [
    {"step": "Read greet.py", "status": "completed"},
    {"step": "Add shout()", "status": "in_progress"},
    {"step": "Run it", "status": "pending"},
]
UPDATE = {"name": "update_plan", "input": {"plan": STEPS, "explanation": "small change"}}
PROPOSE = {"name": "propose_plan", "input": {"plan": PLAN}}
IN_PLAN_MODE = {"toolsInclude": ["propose_plan"], "toolsExclude": ["edit_file", "run_command"]}


def events(cli: Cli) -> list[dict[str, Any]]:
    return cli.events()


@pytest.mark.parametrize("yes", [True, False])
def test_with_no_one_to_ask_the_plan_is_the_answer_and_the_mode_stays(
    cli: Cli, tmp_path: Path, yes: bool
) -> None:
    model = script(tmp_path, [
        {"toolCalls": [UPDATE]},
        {"expect": IN_PLAN_MODE, "toolCalls": [PROPOSE]},
    ])  # fmt: skip
    flags = ["--yes"] if yes else []
    run = cli.run("ask", "plan a shout()", "--model", model, "--mode", "plan", *flags)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == PLAN  # the answer, on stdout
    assert "  plan (1/3 done): small change\n    [x] Read greet.py\n    [>] Add shout()\n" in (
        run.stderr
    )
    logged = events(cli)
    reviewed = [e for e in logged if e["kind"] == "plan_reviewed"]
    assert [(e["choice"], e["person"]) for e in reviewed] == [("keep-planning", False)]
    assert [e["mode"] for e in logged if e["kind"] == "mode_changed"] == ["plan"]
    session = logged[0]["sessionId"]
    shown = cli.run("show", session)
    assert "**Plan:**\n- [x] Read greet.py\n- [>] Add shout()\n- [ ] Run it" in shown.stdout
    assert "◆ Plan proposed — no one was there to approve it" in shown.stdout
    # A --json answer carries the plan too, and the session is still in plan mode.
    again = script(tmp_path, [{"expect": IN_PLAN_MODE, "text": "Still planning."}])
    later = cli.run("ask", "and?", "--model", again, "--session", session, "--json")
    assert json.loads(later.stdout)["text"] == "Still planning.", later.stderr


def test_a_person_at_the_terminal_switches_to_default_and_the_run_goes_on(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    model = script(tmp_path, [
        {"expect": IN_PLAN_MODE, "toolCalls": [PROPOSE]},
        {"expect": {"toolsInclude": ["edit_file", "run_command"], "toolsExclude": ["propose_plan"],
                    "lastToolResultContains": "switched to default mode"},
         "text": "Carrying it out."},
    ])  # fmt: skip
    args = ["ask", "plan a shout()", "--model", model, "--mode", "plan"]
    with TerminalRun(args, workspace, cli.env) as run:
        wait_until(lambda: run.count("Start?") == 1, what="the plan's question")
        asked = run.output().decode()
        run.type("d\n")
        assert run.wait() == 0
        said = run.output().decode()
        answer = run.output("stdout").decode()
    assert "⚑ agentls proposes a plan:\n    # Plan\n    1. Add shout() to greet.py" in asked
    assert "[d] switch to default (edits reviewed)  [a] switch to accept-edits  [k] keep" in asked
    assert "  mode: default" in said and answer.strip() == "Carrying it out."
    logged = events(cli)
    assert [e["mode"] for e in logged if e["kind"] == "mode_changed"] == ["plan", "default"]


def test_keep_planning_sends_the_note_and_stays_in_plan_mode(
    cli: Cli, workspace: Path, tmp_path: Path
) -> None:
    model = script(tmp_path, [
        {"expect": IN_PLAN_MODE, "toolCalls": [PROPOSE]},
        {"expect": {**IN_PLAN_MODE, "lastToolResultContains": "Their note: split step 2"},
         "text": "Planning more."},
    ])  # fmt: skip
    args = ["ask", "plan a shout()", "--model", model, "--mode", "plan"]
    with TerminalRun(args, workspace, cli.env) as run:
        wait_until(lambda: run.count("Start?") == 1, what="the plan's question")
        run.type("x\n")  # not an answer: asked again
        wait_until(lambda: run.count("please answer d, a or k") == 1, what="the retry")
        run.type("k\n")
        wait_until(lambda: run.count("A note for the agent") == 1, what="the note's question")
        run.type("split step 2\n")
        assert run.wait() == 0
    reviewed = next(e for e in events(cli) if e["kind"] == "plan_reviewed")
    assert (reviewed["choice"], reviewed["note"], reviewed["person"]) == (
        "keep-planning", "split step 2", True,
    )  # fmt: skip
    assert [e["mode"] for e in events(cli) if e["kind"] == "mode_changed"] == ["plan"]
