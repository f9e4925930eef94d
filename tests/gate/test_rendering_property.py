"""What rules allow runs exactly the simple commands the analysis listed.

Random lines are built from bash's grammar (quotes, escapes, ANSI-C strings,
backslash-newlines, expansions, globs, braces, here-documents with every
spelling of their delimiter, here-strings, lists, pipelines, subshells, groups,
``if``, ``bash -c``). Each line the gate allows by rule is run the way the
runtime runs it (its rendering, by bash) with programs on PATH that record
every time they run and with what; each recorded run must be one the analysis
listed, with the words it listed. A program no rule allows (``qz``) is among
the pieces, spelled where bash and a careless reader disagree (after a
here-document's delimiter, behind ``$\\<newline>(``): if it runs, the test fails.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentls.contracts.decisions import Verdict
from agentls.contracts.tooling import Risk
from agentls.permissions import grammar
from agentls.permissions.modes import Mode
from agentls.permissions.policy import PermissionPolicy
from agentls.permissions.rules import RuleSet
from agentls.permissions.shell import SimpleCommand, analyse, clear_caches

ALLOWED = ("qa", "qb", "qc")
FORBIDDEN = "qz"
RULES = RuleSet.from_settings({
    "allow": [f"run_command({name} *)" for name in ALLOWED],
    "deny": [f"run_command({FORBIDDEN} *)"],
})  # fmt: skip
# Each run writes a file of its own (runs in the background may overlap).
RECORDER = """#!/bin/sh
printf '%s\\037' "${0##*/}" "$@" > "$(mktemp "$REC_DIR/run.XXXXXXXX")"
"""

plain = st.text(alphabet="abcxyz019_-./=:,@%+", min_size=1, max_size=6)
tricky = st.sampled_from([
    "$HOME", "${HOME}", "\"$HOME\"", "${X:-d}", "$1", "\"$@\"", "*", "?", "[ab]", "{a,b}",
    "{1..2}", "~", "~/q", "\\ ", "\\\n", "'\\''", "$'\\x41'", "$'a\\'b'", "$\"q\"", "\\$",
    "\"$\\\n(qz)\"", "$\\\n(qz)", "\"a\\\nb\"", "'it''s'", "\"\\\"\"", "#x", "a#b", "'#'",
    "=", "a=b", "\\;", "';'", "'&&'", "\\|", "\\<", "'\\n'", "\"\\\\\"", "if", "'then'",
    "\\\\\\\n", "$'\\n'", "\"${HOME}x\"", "x\\\ny",
])  # fmt: skip
piece = st.one_of(plain, tricky, plain.map(lambda t: f"'{t} {t}'"), plain.map(lambda t: f'"{t}"'))
word = st.lists(piece, min_size=1, max_size=3).map("".join)
delimiters = st.sampled_from([
    "EOF", "'EOF'", '"EOF"', "\\EOF", "$'EOF'", '$"EOF"', "E\\\\OF", 'E"O"F', "E'O'F",
])  # fmt: skip
body_line = st.sampled_from([
    "text", "EOF", "E\\OF", "$EOF", "qz pwned", "$\\", "(qz)", "`qz`", "tail\\", "E\\\\OF",
    "\tEOF", "$HOME", "${HOME}", "\\$(qz)", "'EOF'",
])  # fmt: skip


@st.composite
def commands(draw: st.DrawFn, depth: int = 0) -> str:
    name = draw(st.sampled_from((*ALLOWED, *ALLOWED, FORBIDDEN)))
    words = draw(st.lists(word, max_size=3))
    text = " ".join([name, *words])
    kind = draw(st.integers(0, 9))
    if kind == 0:
        text += f" > out{draw(st.integers(0, 3))}"
    elif kind == 1:
        text += " 2>&1"
    elif kind == 2:
        text += f" <<< {draw(word)}"
    elif kind == 3:
        dash = draw(st.booleans())
        delimiter = draw(delimiters)
        lines = draw(st.lists(body_line, max_size=4))
        ending = draw(st.sampled_from(["EOF", "E\\OF", "\tEOF"]))
        rest = draw(st.lists(st.sampled_from(["qz after", "qa after", "qb x"]), max_size=2))
        text += f" <<{'-' if dash else ''}{delimiter}\n" + "\n".join([*lines, ending, *rest])
    elif kind == 4 and depth == 0:
        inner = draw(lines_of(depth + 1))
        quote = draw(st.sampled_from(["'", '"']))
        text = f"bash -c {quote}{inner}{quote}"
    return text


@st.composite
def lines_of(draw: st.DrawFn, depth: int = 0) -> str:
    parts = draw(st.lists(commands(depth), min_size=1, max_size=4))
    out = parts[0]
    for part in parts[1:]:
        operator = draw(st.sampled_from([" ; ", " && ", " || ", " | ", "\n", " & ", ";\n"]))
        if "\n" in out.split(" <<")[-1]:
            operator = "\n"  # after a here-document's body, a new line
        out += operator + part
    shape = draw(st.integers(0, 5))
    if shape == 0:
        out = f"( {out} )"
    elif shape == 1:
        out = f"{{ {out}\n}}"
    elif shape == 2:
        out = f"if {out}\nthen qa then; fi"
    return out


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("render")
    (root / "bin").mkdir()
    for name in (*ALLOWED, FORBIDDEN):
        program = root / "bin" / name
        program.write_text(RECORDER)
        program.chmod(0o755)
    (root / "ws").mkdir()
    for name in ("a", "b", "q"):
        (root / "ws" / name).write_text(name)
    return root


def recorded(place: Path, line: str) -> list[tuple[str, ...]]:
    runs = place / "runs"
    shutil.rmtree(runs, ignore_errors=True)
    runs.mkdir()
    env = {
        "PATH": f"{place / 'bin'}:/usr/bin:/bin",
        "HOME": os.path.expanduser("~"),
        "REC_DIR": str(runs),
        "LANG": "C",
    }
    bash = shutil.which("bash") or "/bin/bash"
    subprocess.run(
        [bash, "-c", line], cwd=place / "ws", env=env, stdin=subprocess.DEVNULL,
        capture_output=True, timeout=20, check=False,
    )  # fmt: skip
    texts = [run.read_bytes().decode("utf-8", "replace") for run in sorted(runs.iterdir())]
    return [tuple(text.split("\x1f")[:-1]) for text in texts]


def listed(run: Sequence[str], commands: Sequence[SimpleCommand]) -> bool:
    for command in commands:
        words = command.words
        if command.name != run[0]:
            continue
        if command.known is None and tuple(words[1:]) == tuple(run[1:]):
            return True
        if command.known is not None and tuple(words[1 : command.known]) == tuple(
            run[1 : command.known]
        ):
            return True
    return False


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(line=lines_of())
def test_what_rules_allow_runs_only_what_the_analysis_listed(place: Path, line: str) -> None:
    root = place / "ws"
    policy = PermissionPolicy(RULES, Mode.DEFAULT, root=root)
    decision = policy.evaluate("run_command", Risk.EXECUTE, "command", line)
    if decision.verdict is not Verdict.ALLOW:
        return
    assert decision.runs is not None, "an allowed line has a rendering to run"
    analysis = analyse(line, root)
    for run in recorded(place, decision.runs):
        assert run[0] != FORBIDDEN, f"{line!r} ran {FORBIDDEN} as {decision.runs!r}"
        assert listed(run, analysis.commands), (
            f"{line!r} ran {run!r}, not among {[c.words for c in analysis.commands]}"
        )


def test_the_recorders_record(place: Path) -> None:
    """The property can fail: the raw text of a line a reader misreads runs qz (bash ends
    this here-document at its second line, a regex that drops backslashes at its last)."""
    assert sorted(recorded(place, "qa 'x y' && qz z")) == [("qa", "x y"), ("qz", "z")]
    misread = "qa <<E\\\\OF\nE\\OF\nqz pwned\nE\\\\OF"
    assert ("qz", "pwned") in recorded(place, misread)


def _delimiter_by_regex(raw: str) -> tuple[str, bool]:
    """How an earlier reader took a here-document's delimiter: quote characters dropped."""
    return re.sub(r"['\"\\\\]", "", raw), any(q in raw for q in "'\"\\")


def test_a_line_the_parser_misreads_still_runs_only_what_was_judged(
    place: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """By construction: with the parser made to misread a delimiter, the line is allowed
    (qz looks like here-document text to it), its raw text would run qz, and what runs
    (the rendering) does not."""
    monkeypatch.setattr(grammar, "heredoc_delimiter", _delimiter_by_regex)
    clear_caches()
    line = "qa <<E\\\\OF\nE\\OF\nqz pwned\nE\\\\OF"
    policy = PermissionPolicy(RULES, Mode.DEFAULT, root=place / "ws")
    decision = policy.evaluate("run_command", Risk.EXECUTE, "command", line)
    assert decision.verdict is Verdict.ALLOW and decision.runs is not None
    assert ("qz", "pwned") in recorded(place, line)
    runs = recorded(place, decision.runs)
    assert runs == [("qa",)]
