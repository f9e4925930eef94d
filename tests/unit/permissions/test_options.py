"""The one option reader: each program's table decides, whatever the spelling."""

from __future__ import annotations

import pytest

from agentls.permissions.options import Options, Parsed, names, read, table


class Judge:
    def __init__(self) -> None:
        self.failed: list[str] = []

    def fail(self, why: str) -> None:
        self.failed.append(why)


CP = Options(flags="frv", valued="t", long_flags=names("--force"),
             long_valued=names("--target-directory"), runs=names("--strip-program"))  # fmt: skip


def parsed(args: list[str | None], spec: Options = CP, *, permute: bool = True) -> Parsed:
    judge = Judge()
    found = read("cp", args, spec, judge, permute=permute)
    assert found is not None, judge.failed
    return found


@pytest.mark.parametrize(
    ("args", "folder"),
    [
        (["-t", ".git", "a"], ".git"),
        (["-t.git", "a"], ".git"),  # glued
        (["-rft.git", "a"], ".git"),  # bundled, then glued
        (["-rf", "-t", ".git", "a"], ".git"),
        (["a", "--target-directory=.git"], ".git"),  # after an operand: GNU reads it
        (["a", "--target-directory", ".git"], ".git"),
    ],
)
def test_a_value_is_found_however_it_is_spelled(args: list[str | None], folder: str) -> None:
    found = parsed(args)
    assert found.values("-t", "--target-directory") == [folder]
    assert found.operands == ["a"]


def test_after_double_dash_everything_is_an_operand() -> None:
    assert parsed(["--", "-t", "x"]).operands == ["-t", "x"]


@pytest.mark.parametrize(
    "args",
    [["--strip-program=sh", "a"], ["-z", "a"], ["--unknown", "a"], [None, "a"], ["-t"]],
    ids=["runs", "unknown short", "unknown long", "computed", "missing value"],
)
def test_what_the_table_does_not_list_fails_the_line(args: list[str | None]) -> None:
    judge = Judge()
    assert read("cp", args, CP, judge, permute=True) is None
    assert judge.failed


def test_sequential_reading_stops_at_the_first_operand() -> None:
    spec = table(["-p"], ["-n"])
    found = parsed(["-n", "5", "rm", "-rf", None], spec, permute=False)
    assert found.options == [("-n", "5")]
    assert found.stop == 2  # the command starts at "rm"
    assert found.operands[:2] == ["rm", "-rf"]


def test_an_option_that_ends_the_options_takes_its_value_and_stops() -> None:
    spec = Options(flags="u", valued="m", ends=names("-m"))
    found = parsed(["-u", "-m", "http.server", "-d", "x"], spec, permute=False)
    assert found.options == [("-u", ""), ("-m", "http.server")]
    assert found.operands == ["-d", "x"] and found.stop == 3
