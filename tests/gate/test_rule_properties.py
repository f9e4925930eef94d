"""Properties of the rules, over generated inputs (hypothesis).

- every rule "always allow" suggests matches the call it was made from;
- random compositions of the dangerous constructs around a command that no
  allow rule names are never allowed, and never slip past a deny rule that
  names it: they are denied, or asked of a person only (never of --yes).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agentls.contracts.decisions import Verdict
from agentls.contracts.tooling import Risk
from agentls.permissions.modes import Mode
from agentls.permissions.policy import PermissionPolicy
from agentls.permissions.rules import Rule, RuleSet, parse_rule
from agentls.permissions.shell import analyse

ROOT = Path("/work/project")
ALLOW = ["run_command(echo *)", "run_command(ls *)", "run_command(cat *)",
         "run_command(git status)", "run_command(find *)", "run_command(true)",
         "run_command(xargs *)", "run_command(env *)", "run_command(bash *)"]  # fmt: skip
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Characters that mean something to bash, to globs, or to the rule syntax.
TRICKY = st.text(
    alphabet=st.sampled_from(list("abz09-_./ *?[]{}!$'\"\\`()<>|&;~=#%^,\t")),
    min_size=1,
    max_size=12,
)


@FAST
@given(st.lists(TRICKY, min_size=1, max_size=5))
def test_a_suggested_command_rule_matches_its_command(words: list[str]) -> None:
    line = shlex.join(["mytool", *words])
    policy = PermissionPolicy(RuleSet(), Mode.DEFAULT, root=ROOT)
    suggested = policy.suggested_rules("run_command", "command", line)
    assume(suggested)
    for rule in suggested:
        again = parse_rule(str(rule))  # as saved in a settings file and read back
        assert any(again.matches_command("run_command", c) for c in analyse(line, ROOT).commands)
    policy.remember(suggested)
    decision = policy.evaluate("run_command", Risk.EXECUTE, "command", line)
    assert decision.verdict is Verdict.ALLOW, (line, [str(r) for r in suggested])


@FAST
@given(st.lists(TRICKY.filter(lambda s: s.strip(" /.") != ""), min_size=1, max_size=4))
def test_a_suggested_path_rule_matches_its_path(segments: list[str]) -> None:
    path = "/".join(["src", *segments])
    policy = PermissionPolicy(RuleSet(), Mode.DEFAULT, root=ROOT)
    assume(policy.evaluate("write_file", Risk.WRITE, "path", path).verdict is Verdict.ASK)
    (rule,) = policy.suggested_rules("write_file", "path", path)
    assert parse_rule(str(rule)).matches("write_file", "path", path), str(rule)
    policy.remember([rule])
    assert policy.evaluate("write_file", Risk.WRITE, "path", path).verdict is Verdict.ALLOW


# The command no allow rule names, spelled in ways bash runs it.
NAMES = ["touch", "'touch'", '"touch"', "t\\ouch", "to''uch", "$'\\x74ouch'", "/usr/bin/touch",
         "/usr/bin/tou[c]h", "{touch,x}", "${T:-touch}", "$T", "\\touch"]  # fmt: skip
UNSAFE_ENV = ["PATH=.", "LD_PRELOAD=x.so", "BASH_ENV=x", "GIT_CONFIG_COUNT=1", "PYTHONPATH=.",
              "GIT_PAGER=x", "FOO=1"]  # fmt: skip
WRAPPERS = ["env", "env -i", "env -u HOME", "env -C .", "env --", "env LANG=C",
            "env 'BASH_FUNC_x%%=y'", "nice", "nice -n 1", "nice --adjustment 1", "nice -5",
            "timeout 5", "timeout -s KILL 5",
            "timeout --kill-after=1 5", "nohup", "stdbuf -o0", "stdbuf --output=L", "setsid -w",
            "command", "exec", "builtin command", "xargs -a /dev/null", "xargs --max-args 1",
            "xargs -r", "busybox", "sudo", "time", "strace -f", "flock x"]  # fmt: skip


def core() -> st.SearchStrategy[str]:
    return st.builds(
        lambda name, arg: f"{name} {arg}",
        st.sampled_from(NAMES),
        st.sampled_from(["m", "x y", "'a b'", "--", "-c"]),
    )


def hoisted(form: Callable[[str], str]) -> Callable[[str], str]:
    """Put ``c`` where a program name goes; its leading assignments stay in front, where
    bash reads them as assignments (after a wrapper they would be a program name)."""

    def place(c: str) -> str:
        first, _, rest = c.partition(" ")
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=\S*", first) and rest:
            return f"{first} {form(rest)}"
        return form(c)

    return place


def compose(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    q = shlex.quote
    forms = [
        lambda c: f"echo $({c})",
        lambda c: f"echo `{c}`",
        lambda c: f'echo "$({c})"',
        lambda c: f"echo ${{x:-$({c})}}",
        lambda c: f"echo ${{x[$({c})]}}",
        lambda c: f"cat <<< $({c})",
        lambda c: f"cat <<EOF\n$({c})\nEOF",
        lambda c: f"cat <({c})",
        lambda c: f"bash -c {q(c)}",
        lambda c: f"sh -c -- {q(c)}",
        lambda c: f"bash -xc {q(c)}",
        lambda c: f"eval {q(c)}",
        lambda c: f"echo {q(c)} | bash",
        lambda c: f"echo {q(c)} | sh -s",
        lambda c: f"({c})",
        lambda c: f"{{ {c}; }}",
        lambda c: f"if true; then {c}; fi",
        lambda c: f"while true; do {c}; break; done",
        lambda c: f"f() {{ {c}; }}; f",
        lambda c: f"trap {q(c)} EXIT",
        lambda c: f"ls; {c}",
        lambda c: f"git status && {c}",
        lambda c: f"false || {c}",
        lambda c: f"echo hi | {c}",
        lambda c: f"{c} & echo hi",
        lambda c: f"echo hi\n{c}",
        hoisted(lambda c: f"find . -exec {c} {{}} \\;"),
        hoisted(lambda c: f"echo a | xargs -I{{}} {c}"),
    ]
    prefixed = st.builds(
        lambda w, c: hoisted(lambda rest: f"{w} {rest}")(c), st.sampled_from(WRAPPERS), inner
    )
    assigned = st.builds(lambda e, c: f"{e} {c}", st.sampled_from(UNSAFE_ENV), inner)
    wrapped = st.builds(lambda form, c: form(c), st.sampled_from(forms), inner)
    return st.one_of(prefixed, assigned, wrapped)


DANGEROUS = st.recursive(core(), compose, max_leaves=4)


def policy(mode: Mode = Mode.DEFAULT, deny: tuple[str, ...] = ()) -> PermissionPolicy:
    rules = RuleSet.from_settings({"allow": ALLOW, "deny": list(deny)})
    return PermissionPolicy(rules, mode, root=ROOT)


@FAST
@given(DANGEROUS)
def test_no_allow_rule_approves_a_command_it_does_not_name(line: str) -> None:
    decision = policy().evaluate("run_command", Risk.EXECUTE, "command", line)
    assert decision.verdict is not Verdict.ALLOW, (line, decision.source)
    remembered = policy()
    remembered.remember(remembered.suggested_rules("run_command", "command", line))
    again = remembered.evaluate("run_command", Risk.EXECUTE, "command", line)
    assert again.verdict is not Verdict.ALLOW or not analyse(line, ROOT).unresolved


@FAST
@given(DANGEROUS, st.sampled_from([Mode.DEFAULT, Mode.ACCEPT_EDITS, Mode.BYPASS]))
def test_a_matching_deny_rule_is_never_slipped_past(line: str, mode: Mode) -> None:
    decision = policy(mode, ("run_command(touch *)",)).evaluate(
        "run_command", Risk.EXECUTE, "command", line
    )
    if decision.verdict is Verdict.ASK:
        assert decision.person_only and mode is not Mode.BYPASS, (line, decision.source)
    else:
        assert decision.verdict is Verdict.DENY, (line, decision.source)


def test_the_rule_grammar_reads_escaped_rules_back() -> None:
    rule = Rule("run_command", "touch 'a\\*b'")
    assert parse_rule(str(rule)) == rule
