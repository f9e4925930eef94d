"""`agentls rewind` and `agentls fork` through the CLI, the model the fake Anthropic server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e import rewind_story as story
from tests.e2e.conftest import Cli
from tests.fakes.anthropic_server import FakeAnthropic, turn
from tests.helpers import script, wait_until

MODEL = "anthropic:claude-sonnet-4-5"


def ask(cli: Cli, fake: FakeAnthropic, prompt: str, session: str | None = None) -> str:
    """One ask through the fake server; the session's id."""
    more = ["--session", session] if session else []
    env = {"ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake.base_url}
    proc = cli.run("ask", prompt, "--model", MODEL, "--yes", "--json", *more, env=env, timeout=180)
    assert proc.returncode == 0, proc.stderr
    return str(json.loads(proc.stdout)["sessionId"])


def three_asks(cli: Cli, fake: FakeAnthropic) -> str:
    story.workspace_files(cli.workspace)
    session = None
    for number, prompt in enumerate(story.PROMPTS, start=1):
        fake.add(*story.ask_replies(number))
        session = ask(cli, fake, prompt, session)
    assert session is not None
    story.after_three_asks(cli.workspace)
    return session


def events_of(cli: Cli, session: str) -> list[dict[str, object]]:
    path = cli.state / "sessions" / f"{session}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_rewind_to_ask_2_takes_back_asks_2_and_3_and_their_files(
    cli: Cli, fake: FakeAnthropic
) -> None:
    session = three_asks(cli, fake)
    shown = cli.run("show", session).stdout
    assert all(f"## Ask {n} — {p}" in shown for n, p in enumerate(story.PROMPTS, start=1))

    rewound = cli.run("rewind", session, "--ask", "2")
    assert rewound.returncode == 1, rewound.stderr  # not whole: the person's b.py is kept
    said = rewound.stdout
    assert "rewound to before ask 2: took back asks 2 “second: make made.txt” and 3" in said
    assert "restored a.py" in said and "removed made.txt" in said
    assert "kept b.py as it is (changed since; not put back)" in said
    story.after_rewind_to_ask_2(cli.workspace)

    fake.add(turn("answer 4"))
    ask(cli, fake, "fourth", session)
    story.only_ask_1(story.last_request(fake), "fourth")

    shown = cli.run("show", session).stdout
    assert "## ~~Ask 2 — second: make made.txt~~ (taken back)" in shown
    assert "## ~~Ask 3 — third: A to 3, new b.py~~ (taken back)" in shown
    assert "## Ask 4 — fourth" in shown and "## Ask 1 — first: set A to 2" in shown
    assert "↶ Rewound to before ask 2: asks 2 and 3 taken back; restored a.py" in shown
    (logged,) = [e for e in events_of(cli, session) if e["kind"] == "rewound"]
    assert logged["asks"] == [2, 3] and logged["kept"] == ["b.py"]
    assert logged["conversation"] is True and logged["files"] is True

    replay = cli.run("replay", session)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "replayed 4 run(s)" in replay.stdout

    again = cli.run("rewind", session, "--ask", "3")
    assert again.returncode == 2 and "ask 3 is taken back already" in again.stderr
    undo = cli.run("undo", session)  # asks 2 and 3 are undone: the last ask is ask 1
    assert undo.returncode == 0 and "the ask “first: set A to 2”" in undo.stdout


def test_a_fork_at_ask_2_sends_ask_1_only_and_changes_no_file(
    cli: Cli, fake: FakeAnthropic
) -> None:
    session = three_asks(cli, fake)
    before = story.files(cli.workspace)

    forked = cli.run("fork", session, "--ask", "2")
    assert forked.returncode == 0, forked.stderr
    fork = forked.stdout.strip()
    assert fork != session and (cli.state / "sessions" / f"{fork}.jsonl").exists()
    assert story.files(cli.workspace) == before

    fake.add(turn("answer forked"))
    assert ask(cli, fake, "forked", fork) == fork
    story.only_ask_1(story.last_request(fake), "forked")
    assert story.files(cli.workspace) == before

    listed = cli.run("sessions").stdout.splitlines()
    (line,) = [entry for entry in listed if entry.startswith(fork)]
    assert line.endswith(f"⑂ fork of {session} before ask 2")
    shown = cli.run("show", fork).stdout
    assert f"- Forked from: {session}, before its ask 2 (ask 1 below is its history)" in shown
    assert "## Ask 1 — first" in shown and "## Ask 2 — forked" in shown
    assert "second: make made.txt" not in shown
    for replayed in (fork, session):
        replay = cli.run("replay", replayed)
        assert replay.returncode == 0, replay.stdout + replay.stderr

    # The fork owns no file history: its undo reaches only what its own asks changed.
    undo = cli.run("undo", fork)
    assert undo.returncode == 2 and "changed no files" in undo.stderr
    whole = cli.run("fork", session)
    assert whole.returncode == 0, whole.stderr
    shown = cli.run("show", whole.stdout.strip()).stdout
    assert "whole (asks 1–3 below are its history)" in shown


def test_files_only_and_conversation_only_each_do_their_half(cli: Cli, fake: FakeAnthropic) -> None:
    session = three_asks(cli, fake)
    (cli.workspace / "b.py").write_text("B = 3\n")  # as ask 3 left it: nothing to keep

    dry = cli.run("rewind", session, "--ask", "3", "--dry-run")
    assert dry.returncode == 0 and "would take back ask 3" in dry.stdout
    assert "restore a.py, b.py" in dry.stdout and (cli.workspace / "a.py").read_text() == "A = 3\n"

    files = cli.run("rewind", session, "--ask", "3", "--files-only")
    assert files.returncode == 0, files.stderr
    assert "the conversation keeps its asks" in files.stdout
    assert (cli.workspace / "a.py").read_text() == "A = 2\n"
    assert (cli.workspace / "b.py").read_text() == "B = 1\n"
    fake.add(turn("answer 4"))
    ask(cli, fake, "fourth", session)
    assert story.prompts_in(story.last_request(fake)) == [*story.PROMPTS, "fourth"]

    talk = cli.run("rewind", session, "--ask", "2", "--conversation-only")
    assert talk.returncode == 0 and "files left as they are" in talk.stdout
    assert (cli.workspace / "made.txt").exists()  # ask 2's file stays
    fake.add(turn("answer 5"))
    ask(cli, fake, "fifth", session)
    seen = story.texts(story.last_request(fake))
    assert any(t.startswith(story.PROMPTS[0]) for t in seen) and "fifth" in seen
    assert not any(t.startswith(("second", "third", "fourth")) for t in seen)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--ask", "9"], "no ask 9 in this session (ask 1)"),
        (["--ask", "0"], "no ask 0 in this session"),
        (["--ask", "1", "--files-only", "--conversation-only"], "not allowed with argument"),
    ],
)
def test_a_bad_rewind_says_why_and_changes_nothing(
    cli: Cli, tmp_path: Path, args: list[str], said: str
) -> None:
    (cli.workspace / "a.py").write_text("A = 1\n")
    model = script(tmp_path, [
        {"toolCalls": [{"name": "edit_file", "input": {"path": "a.py", "old_text": "A = 1",
                                                        "new_text": "A = 2"}}]},
        {"text": "ok"},
    ])  # fmt: skip
    assert cli.run("ask", "edit", "--model", model, "--yes").returncode == 0
    session = cli.session_files()[0].stem
    log = cli.session_files()[0].read_bytes()
    proc = cli.run("rewind", session, *args)
    assert proc.returncode == 2 and said in proc.stderr, proc.stderr
    assert cli.session_files()[0].read_bytes() == log
    assert (cli.workspace / "a.py").read_text() == "A = 2\n"
    assert cli.run("rewind", "no-such-session", "--ask", "1").returncode == 2
    assert cli.run("fork", session, "--ask", "5").returncode == 2
    assert len(cli.session_files()) == 1


def test_a_rewind_of_a_session_another_process_runs_is_refused_by_name(
    cli: Cli, tmp_path: Path
) -> None:
    (cli.workspace / "a.txt").write_text("a\n")
    first = script(tmp_path, [{"text": "hello"}], "first.json")
    assert cli.run("ask", "start", "--model", first).returncode == 0
    session = cli.session_files()[0].stem
    command = "touch started; while [ ! -e go ]; do sleep 0.02; done"
    waiting = script(tmp_path, [
        {"toolCalls": [{"name": "run_command", "input": {"command": command}}]},
        {"text": "Waited."},
    ], "wait.json")  # fmt: skip
    holder = cli.popen("ask", "wait", "--yes", "--model", waiting, "--session", session)
    try:
        wait_until(lambda: (cli.workspace / "started").exists(), what="the holder's command")
        log = cli.session_files()[0].read_bytes()
        refused = cli.run("rewind", session, "--ask", "1")
        assert refused.returncode == 2
        assert f"is running elsewhere (`agentls ask`, pid {holder.pid}" in refused.stderr
        whole = cli.run("fork", session)
        assert whole.returncode == 2 and f"pid {holder.pid}" in whole.stderr
        early = cli.run("fork", session, "--ask", "2")  # what came before ask 2 is settled
        assert early.returncode == 0, early.stderr
        assert cli.session_files()[0].read_bytes()[: len(log)] == log
        (cli.workspace / "go").touch()
        assert holder.wait(timeout=60) == 0
    finally:
        holder.kill()
    assert cli.run("rewind", session, "--ask", "2").returncode == 0
