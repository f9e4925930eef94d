"""The permission decision for commands, table-driven: rules, compound commands,
quoting tricks, environment prefixes, subshells, redirections, wrappers, globs."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentls.contracts.decisions import Verdict
from agentls.contracts.tooling import Risk
from agentls.permissions.modes import Mode
from agentls.permissions.policy import PermissionPolicy
from agentls.permissions.rules import RuleSet

ROOT = Path("/work/project")
A, Q, D = Verdict.ALLOW, Verdict.ASK, Verdict.DENY

GIT = {"allow": ["run_command(git status)", "run_command(git diff *)", "run_command(ls *)",
                 "run_command(pytest *)", "run_command(echo *)", "run_command(cat *)",
                 "run_command(grep *)", "run_command(wc *)", "run_command(python3 -m pytest *)"],
       "deny": ["run_command(rm *)", "run_command(git push *)", "run_command(curl *)"],
       "ask": ["run_command(git commit *)"]}  # fmt: skip

CASES: list[tuple[str, str, Verdict]] = [
    # plain matches
    ("git status", "", A),
    ("git status --short", "a longer command than the rule", Q),
    ("git diff", "trailing * matches no words too", A),
    ("git diff HEAD~1 -- src", "", A),
    ("ls", "", A),
    ("ls -la src", "", A),
    ("pytest", "", A),
    ("pytest -q tests/unit", "", A),
    ("python3 -m pytest -x", "", A),
    ("python3 -m http.server", "not the allowed module", Q),
    ("make", "no rule at all", Q),
    ("npm test", "", Q),
    ("git log", "", Q),
    ("git commit -m wip", "ask rule", Q),
    ("git push origin main", "deny rule", D),
    ("git push", "deny rule with trailing * and no words", D),
    ("rm -rf build", "", D),
    ("rm x", "", D),
    ("curl https://example.com", "", D),
    # compound commands: allowed only if every part is
    ("git status && ls", "", A),
    ("git status; ls", "", A),
    ("git status || ls", "", A),
    ("ls | wc -l", "", A),
    ("ls | grep x | wc -l", "", A),
    ("git status && rm -rf x", "a denied part denies the whole", D),
    ("git status; rm -rf x", "", D),
    ("ls || rm -rf x", "", D),
    ("ls | rm x", "", D),
    ("git status && make", "an unknown part asks", Q),
    ("ls & rm x", "background", D),
    ("ls &", "", A),
    ("git status\nrm -rf x", "newline separated", D),
    ("git status\nls", "", A),
    ("! ls", "negated pipeline", A),
    ("ls |& grep x", "", A),
    # subshells and groups
    ("(ls)", "", A),
    ("(cd src && ls)", "cd is not allowed", Q),
    ("(ls; rm -rf x)", "", D),
    ("{ ls; rm x; }", "", D),
    ("{ ls; echo hi; }", "", A),
    ("if true; then ls; fi", "true not allowed", Q),
    ("for f in a b; do rm $f; done", "", D),
    ("while ls; do echo x; done", "", A),
    # command substitution always asks (and still meets deny rules)
    ("echo $(ls)", "", Q),
    ("echo `ls`", "", Q),
    ("echo $(rm -rf x)", "deny inside a substitution", D),
    ("ls $(echo src)", "", Q),
    ("cat <(ls)", "process substitution", Q),
    ("X=$(ls) echo hi", "substitution in an assignment", Q),
    # quoting tricks
    ('g"i"t status', "quotes are removed like bash does", A),
    ("'git' 'status'", "", A),
    ("g\\it status", "", A),
    ("'r''m' -rf x", "", D),
    ('"rm" -rf x', "", D),
    ("r''m -rf x", "", D),
    ('r""m -rf x', "", D),
    ("echo 'rm -rf x'", "a quoted string is an argument", A),
    ('echo "a && rm -rf x"', "", A),
    ("echo 'a; rm x'", "", A),
    ("ls \\\n -la", "line continuation", A),
    ("git status ''", "an empty argument is an argument", Q),
    ("git -p $X && ls", "a subcommand computed after global options could be push", D),
    ("git --no-pager [p]ush && ls", "so could a globbed one", D),
    ("git -C . --no-pager p[u]sh", "", D),
    # paths to programs
    ("/bin/rm -rf x", "a path to a denied program", D),
    ("/usr/bin/git status", "an allow rule names a program, not a path to one", Q),
    ("./rm x", "", D),
    # environment prefixes
    ("FOO=1 ls", "FOO is not on the safe list of variables", Q),
    ("LANG=C LC_ALL=C pytest -q", "safe variables", A),
    ("LD_PRELOAD=evil.so ls", "asks: changes what runs", Q),
    ("PATH=/tmp ls", "", Q),
    ("PYTHONPATH=x pytest", "", Q),
    ("FOO=1 rm x", "", D),
    ("env ls", "env is transparent", A),
    ("env FOO=1 pytest -q", "", Q),
    ("env TZ=UTC pytest -q", "", A),
    ("env rm x", "", D),
    ("env -i rm x", "", D),
    # wrappers
    ("timeout 60 pytest -q", "", A),
    ("timeout -s KILL 60 pytest", "", A),
    ("timeout 60 rm -rf x", "", D),
    ("nohup ls", "", A),
    ("nice -n 10 pytest", "", A),
    ("nice rm x", "", D),
    ("xargs rm", "", D),
    ("ls | xargs rm", "", D),
    ("ls | xargs -n 1 grep x", "", A),
    ("find . -name '*.pyc' -exec rm {} ;", "find -exec runs rm", D),
    ("find . -name '*.pyc'", "find is not allowed", Q),
    ("bash -c 'ls'", "bash -c is read like the line", A),
    ("bash -c 'ls; rm x'", "", D),
    ("sh -c 'git status && ls'", "", A),
    ('bash -c "$CMD"', "a computed script", Q),
    ("bash script.sh", "a script file cannot be read", Q),
    ("command ls", "", A),
    # always-ask commands
    ("eval ls", "", Q),
    ("eval rm x", "", Q),
    ("sudo ls", "", Q),
    ("sudo rm -rf /", "sudo and a denied command", D),
    ("su -c ls", "", Q),
    ("source env.sh", "", Q),
    (". ./env.sh", "", Q),
    ("exec ls", "exec is looked through", A),
    ("f() { ls; }; f", "a function definition", Q),
    ("$CMD", "computed command name", Q),
    ("${CMD} x", "", Q),
    # redirections
    ("ls > out.txt", "inside the workspace", A),
    ("ls >> logs/out.txt", "", A),
    ("ls > /work/project/out.txt", "absolute but inside", A),
    ("ls 2>/dev/null", "", A),
    ("ls > /dev/null 2>&1", "", A),
    ("ls > /etc/passwd", "outside", Q),
    ("ls > ../outside.txt", "", Q),
    ("ls > ~/notes.txt", "", Q),
    ("cat < /etc/shadow", "reading outside by redirection", Q),
    ("echo x > $HOME/y", "computed target", Q),
    ("cat <<EOF\nhello\nEOF", "a here-document stays inside", A),
    ("ls > out.txt; rm x", "", D),
    # globs in arguments are just words
    ("ls *.py", "", A),
    ("rm *.pyc", "", D),
    ("cat src/*.py", "", A),
    # the parser: comments, quoted here-documents, functions, grammar it does not read
    ("ls # ; rm -rf x", "a comment", A),
    ("echo a#b", "# inside a word is a character", A),
    ("cat <<'EOF'\n$(rm x)\nEOF", "a quoted here-document is literal text", A),
    ("cat <<EOF\n$(rm x)\nEOF", "an unquoted one is expanded", Q),
    ("f() { rm x; }; f", "deny rules see inside a function", D),
    ("time ls", "time is not read", Q),
    ("select x in a; do ls; done", "", Q),
    # unparseable lines ask
    ("echo $((1 + 2))", "arithmetic: the parser cannot read it", Q),
    ("[[ -f x ]] && ls", "", Q),
    ("ls 'unterminated", "", Q),
]


@pytest.mark.parametrize(("command", "why", "expected"), CASES, ids=[c[0] for c in CASES])
def test_command_decisions(command: str, why: str, expected: Verdict) -> None:
    policy = PermissionPolicy(RuleSet.from_settings(GIT), Mode.DEFAULT, root=ROOT)
    decision = policy.evaluate("run_command", Risk.EXECUTE, "command", command)
    assert decision.verdict is expected, f"{command!r} ({why}): {decision.source}"


def test_there_are_at_least_a_hundred_cases() -> None:
    assert len(CASES) >= 100


BYPASS_CASES = [
    ("make", D),  # a program agentls does not know, while deny rules exist
    ("ls -la", A),  # no prompts in bypass
    ("rm -rf x", D),  # deny rules still hold
    ("git status && rm x", D),
    ("git commit -m x", Q),  # writes .git, a control file: a person, even in bypass
    ("git status", A),
    ("echo $(id)", D),  # unresolved while deny rules exist: no prompt, so denied
    ("sudo make", D),
    ("ls > /etc/x", Q),
]


@pytest.mark.parametrize(("command", "expected"), BYPASS_CASES)
def test_bypass_mode(command: str, expected: Verdict) -> None:
    policy = PermissionPolicy(RuleSet.from_settings(GIT), Mode.BYPASS, root=ROOT)
    decision = policy.evaluate("run_command", Risk.EXECUTE, "command", command)
    assert decision.verdict is expected, decision.source


@pytest.mark.parametrize(
    ("command", "suggested"),
    [
        ("make test", ["run_command(make test)"]),
        ("git status && make", ["run_command(make)"]),  # only what no rule covers yet
        ("make && npm test", ["run_command(make)", "run_command(npm test)"]),
        ("timeout 9 make", ["run_command(make)"]),
        ("rm *.pyc", []),  # a glob: no rule names exactly this
        ("touch '*.pyc'", ["run_command(touch '\\*.pyc')"]),
        ("echo 'a b'", ["run_command(echo 'a b')"]),
        ("echo hi > .git/config", []),  # a control file: no rule would approve the line
        ("cp x sub/.vscode/tasks.json", []),
    ],
)
def test_always_allow_proposes_the_narrowest_rules(command: str, suggested: list[str]) -> None:
    rules = {"allow": ["run_command(git status)"]}
    policy = PermissionPolicy(RuleSet.from_settings(rules), Mode.DEFAULT, root=ROOT)
    proposed = [str(r) for r in policy.suggested_rules("run_command", "command", command)]
    assert proposed == suggested
    if not suggested:
        return
    # and once remembered, the same command no longer asks
    policy.remember(policy.suggested_rules("run_command", "command", command))
    decision = policy.evaluate("run_command", Risk.EXECUTE, "command", command)
    assert decision.verdict is A, decision.source
