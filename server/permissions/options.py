"""The one reader of command-line options, driven by each program's table.

A program's options are a closed table (``Options``): flags, options with a
value (glued, ``-t.git``, or the next word), options whose value may only be
glued (``sed -i.bak``), and the same for long options (``--name``, ``--name=V``,
``--name V``). Short options may be bundled (``-rf``). An option not in the
table, or one the table says runs a program, fails the line. GNU programs read
options anywhere among their operands (``permute``); wrappers and interpreters
stop at their first operand, after which the words are another program's.
A word computed at run time (``None``) where an option may stand fails the line
too: it could be any option.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol


class Judge(Protocol):
    def fail(self, why: str) -> None: ...


@dataclass(frozen=True, slots=True)
class Options:
    flags: str = ""  # short options without a value; they may be bundled (-rf)
    valued: str = ""  # short options with a value, glued (-t.git) or the next word
    optional: str = ""  # short options whose value may only be glued (sed -i.bak)
    long_flags: frozenset[str] = frozenset()
    long_valued: frozenset[str] = frozenset()  # --name=V or --name V
    long_optional: frozenset[str] = frozenset()  # --name or --name=V
    # Options whose value is a path the program writes (-o FILE, --target-directory).
    writes: frozenset[str] = frozenset()
    # Options that make the program run another one (or code given inline): the line
    # is unresolved, and ``runs_why`` says why.
    runs: frozenset[str] = frozenset()
    runs_why: str = "runs a program"
    # Options after which the rest is the program's own (python -m MODULE …).
    ends: frozenset[str] = frozenset()


@dataclass(slots=True)
class Parsed:
    options: list[tuple[str, str]] = field(default_factory=list)
    operands: list[str] = field(default_factory=list)
    # How many of the arguments the options took, up to the first operand (or the
    # option that ``ends`` them); the rest are operands (read sequentially).
    stop: int = 0

    def given(self, *names: str) -> bool:
        return any(option in names for option, _ in self.options)

    def values(self, *names: str) -> list[str]:
        return [value for option, value in self.options if option in names]


def names(*options: str) -> frozenset[str]:
    return frozenset(options)


def table(flags: Sequence[str] = (), valued: Sequence[str] = ()) -> Options:
    """A table from option spellings (``-n``, ``--adjustment``): short and long apart."""
    return Options(
        flags="".join(f[1] for f in flags if len(f) == 2 and f != "--"),
        valued="".join(v[1] for v in valued if len(v) == 2),
        long_flags=frozenset(f for f in flags if f.startswith("--")),
        long_valued=frozenset(v for v in valued if v.startswith("--")),
    )


def read(
    program: str,
    args: Sequence[str | None],
    table: Options,
    judge: Judge,
    *,
    permute: bool,
) -> Parsed | None:
    """The options and operands of ``args`` (None: a word computed at run time); None,
    with the line failed, on an option the table does not list or one that runs a
    program."""
    parsed = Parsed()
    index = 0
    while index < len(args):
        text = args[index]
        if text is None:
            if not permute and parsed.operands:
                parsed.operands.append("")  # another program's word: not read here
                index += 1
                continue
            judge.fail(f"{program} is given a word computed at run time where it reads options")
            return None
        if not permute and parsed.operands:
            parsed.operands.append(text)
            index += 1
            continue
        index += 1
        if text == "--":
            parsed.stop = index
            parsed.operands.extend(a or "" for a in args[index:])
            break
        if not text.startswith("-") or text == "-":
            if not permute and not parsed.operands:
                parsed.stop = index - 1
            parsed.operands.append(text)
            continue
        taken = _option(program, text, args, index, table, parsed, judge)
        if taken is None:
            return None
        index += taken
        if parsed.options and parsed.options[-1][0] in table.ends:
            parsed.stop = index
            parsed.operands.extend(a or "" for a in args[index:])
            break
    else:
        if not parsed.operands:
            parsed.stop = len(args)
    return parsed


def _option(
    program: str,
    text: str,
    args: Sequence[str | None],
    index: int,
    table: Options,
    parsed: Parsed,
    judge: Judge,
) -> int | None:
    """Read the option ``text`` (args[index - 1]); how many more words it took."""
    if text.startswith("--"):
        key, eq, value = text.partition("=")
        if key in table.runs:
            judge.fail(f"{program} {key} {table.runs_why}")
            return None
        if key in table.long_flags and not eq:
            parsed.options.append((key, ""))
            return 0
        if key in table.long_optional:
            parsed.options.append((key, value))
            return 0
        if key in table.long_valued or key in table.writes or key in table.ends:
            return _value(program, key, value if eq else None, args, index, parsed, judge)
        judge.fail(f"{program} is given an option this analysis does not know ({text[:30]})")
        return None
    for position in range(1, len(text)):
        letter = text[position]
        option = "-" + letter
        if option in table.runs:
            judge.fail(f"{program} {option} {table.runs_why}")
            return None
        if letter in table.flags:
            parsed.options.append((option, ""))
            continue
        if letter in table.optional:
            parsed.options.append((option, text[position + 1 :]))
            return 0
        if letter in table.valued or option in table.writes or option in table.ends:
            glued = text[position + 1 :] or None
            return _value(program, option, glued, args, index, parsed, judge)
        judge.fail(f"{program} is given an option this analysis does not know ({text[:30]})")
        return None
    return 0


def _value(
    program: str,
    option: str,
    glued: str | None,
    args: Sequence[str | None],
    index: int,
    parsed: Parsed,
    judge: Judge,
) -> int | None:
    """An option's value: glued to it, or the next word (which it then takes)."""
    if glued is not None:
        parsed.options.append((option, glued))
        return 0
    following = args[index] if index < len(args) else None
    if following is None:
        judge.fail(f"{program} {option} has no value it can read")
        return None
    parsed.options.append((option, following))
    return 1
