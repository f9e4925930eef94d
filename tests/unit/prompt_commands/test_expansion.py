"""`/name args` and the placeholders of each format."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentls.prompt_commands.expansion import Invocation, expand, invocation, unescaped

ROOT = Path("/work/project")


@pytest.mark.parametrize(
    ("prompt", "named"),
    [
        ("/review src/app.py", Invocation("review", "src/app.py")),
        ("/review", Invocation("review", "")),
        ("/git:commit  -m 'fix'\nmore", Invocation("git:commit", "-m 'fix'\nmore")),
        ("/release-notes.v2 x", Invocation("release-notes.v2", "x")),
        ("/usr/bin/env is missing", None),  # a path is no command
        ("//tmp is full", None),  # the escape
        (" /review", None),
        ("review /x", None),
        ("/", None),
    ],
)
def test_what_names_a_command(prompt: str, named: Invocation | None) -> None:
    assert invocation(prompt) == named


def test_two_slashes_send_one() -> None:
    assert unescaped("//tmp is full") == "/tmp is full"
    assert unescaped("/tmp") == "/tmp"


def test_arguments_and_positions_quotes_grouping() -> None:
    body = "Review $1 for $2; all: $ARGUMENTS; none: [$3] [$9]; not $10 nor $0.\n"
    assert expand(body, 'a.py "error handling"', "markdown", ROOT) == (
        'Review a.py for error handling; all: a.py "error handling"; none: [] []; not $10 nor $0.'
    )


def test_unbalanced_quotes_split_at_white_space() -> None:
    assert expand("[$1] [$2]", "it's fine", "markdown", ROOT) == "[it's] [fine]"


def test_a_body_without_a_place_for_arguments_gets_them_after_it() -> None:
    assert expand("Explain the build.\n", "briefly", "markdown", ROOT) == (
        "Explain the build.\n\nARGUMENTS: briefly"
    )
    assert expand("Explain the build.\n", "", "markdown", ROOT) == "Explain the build."


def test_a_prompt_file_takes_named_inputs_and_the_workspace_folder() -> None:
    body = (
        "Form ${input:formName:the name} (${input:style}) in ${workspaceFolderBasename} "
        "at ${workspaceFolder}; ${file} stays.\n"
    )
    assert expand(body, "formName=Login extra", "prompt-file", ROOT) == (
        "Form Login () in project at /work/project; ${file} stays.\n\nformName=Login extra"
    )
    # $1 means nothing to a prompt file
    assert expand("Cost: $1", "", "prompt-file", ROOT) == "Cost: $1"
