"""The parser's fast paths read every line exactly as its general path does.

grammar.py reads the common shapes of a command (plain words, words with plain
redirections or one literal substitution) in one regular-expression match each;
anything else takes the general, character-by-character path. Both must give
the same Script (commands, words as written, redirections, here-document bodies,
for-loop lists, the layout between the commands), or one of them reads bash
differently from the other: random lines from bash's grammar and the lines of
the rules table are parsed both ways and compared.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentls.permissions import grammar
from agentls.permissions.script import ForHead, Literal, Redirect, Script, Simple
from tests.gate.test_rendering_property import lines_of
from tests.unit.permissions.test_command_rules_table import CASES


def _redirect(node: Redirect) -> tuple[Any, ...]:
    target = None if node.target is None else _word(node.target)
    return (node.fd, node.op, node.dup, target, node.body, node.quoted)


def _word(node: grammar.SourceWord) -> tuple[Any, ...]:
    return (node.raw, tuple(_commands(inner) for inner in node.scripts))


def _command(node: Simple | Literal) -> tuple[Any, ...]:
    if isinstance(node, tuple):
        return ((), tuple((word, ()) for word in node), ())
    return (
        tuple(_word(w) for w in node.assignments),
        tuple(_word(w) for w in node.words),
        tuple(_redirect(r) for r in node.redirects),
    )


def _commands(script: Script) -> tuple[Any, ...]:
    """What a substitution's script holds: its commands (such a line is never run on a
    rule's word, so its layout is not read)."""
    return tuple(_command(c) for c in script.commands)


def _step(step: object) -> object:
    if isinstance(step, ForHead):
        return ("for", step.name, None if step.words is None else [_word(w) for w in step.words])
    if isinstance(step, Redirect):
        return _redirect(step)
    return step


def shape(source: str, *, fast: bool) -> object:
    try:
        script = grammar.parse(source, fast=fast)
    except grammar.Unsupported:
        return "unsupported"
    except RecursionError:
        return "too deep"
    return (
        _commands(script),
        [_word(w) for w in script.loose_words],
        [_redirect(r) for r in script.redirects],
        script.functions,
        script.loop_names,
        [_step(s) for s in script.layout],
    )


SAMPLES = [
    "git status", "ls -la src && echo hi > out.txt", "echo $(date) >> log.txt",
    "a | b |& c || d && e; f & g\nh", "echo 'a b' \"c $d\" e\\ f > 'o u t'", "x=1 y=2 cmd a",
    "cat <<EOF > notes.md\nline one\nEOF", "( a ) && { b; } || ! c", "2>&1 cmd 3<in >>out",
    "for x in a b; do echo $x; done > out", "if a; then b; elif c; then d; else e; fi",
    "while read l; do echo \"$l\"; done < f", "echo $(a $(b)) `c` <(d)", "f() { x; }; f",
    "echo a#b # comment\necho c", "cmd \\\n  --flag \\\n  arg", "echo ${x:-y} $1 \"$@\"",
    "echo 'x y' z \"q r\"", "cmd 2>err 'a b' 1>&2", "a $(b c) d > $(e) && f",
]  # fmt: skip


def test_the_samples_and_the_rules_table_read_the_same_both_ways() -> None:
    for source in [*SAMPLES, *(case[0] for case in CASES)]:
        assert shape(source, fast=True) == shape(source, fast=False), source
    # and the fast paths were taken: plain commands come back as their words alone
    assert sum(isinstance(c, tuple) for s in SAMPLES for c in grammar.parse(s).commands) > 10


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(line=lines_of())
def test_random_lines_read_the_same_both_ways(line: str) -> None:
    assert shape(line, fast=True) == shape(line, fast=False)


@settings(max_examples=300, deadline=None)
@given(line=st.text(alphabet=" \t\n;&|()<>'\"\\$`#=*?[]{}~!abcx01-/.", max_size=40))
def test_any_text_reads_the_same_both_ways(line: str) -> None:
    assert shape(line, fast=True) == shape(line, fast=False)
