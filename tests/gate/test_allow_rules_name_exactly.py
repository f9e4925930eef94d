"""Issue class 1: an allow rule approves exactly what it names.

The attacker holds narrow allow rules (`git status`, `echo *`, `ls *`, `cat *`,
`find *`, `touch ok`) and no one to ask (no terminal, no --yes): every call the
gate asks about is denied. Each attack tries to create its own marker file by a
command the rules do not name; the marker must never appear.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.gate.harness import Attack, command

RULES = ["run_command(git status)", "run_command(echo *)", "run_command(ls *)",
         "run_command(cat *)", "run_command(find *)", "run_command(touch ok)",
         "run_command(pytest *)"]  # fmt: skip

# {m} is the case's marker file.
ATTACKS: list[tuple[str, str]] = [
    ("semicolon", "git status; touch {m}"),
    ("and", "git status && touch {m}"),
    ("or", "git status --porcelain=bad || touch {m}"),
    ("pipe", "git status | touch {m}"),
    ("background", "git status & touch {m}"),
    ("newline", "git status\ntouch {m}"),
    ("negated", "! touch {m}"),
    ("subshell", "(touch {m})"),
    ("group", "{ touch {m}; }"),
    ("if", "if true; then touch {m}; fi"),
    ("for", "for f in {m}; do touch $f; done"),
    ("while", "while true; do touch {m}; break; done"),
    ("dollar-paren", "echo $(touch {m})"),
    ("backquote", "echo `touch {m}`"),
    ("quoted-substitution", 'echo "$(touch {m})"'),
    ("quoted-backquote", 'echo "`touch {m}`"'),
    ("default-expansion", "echo ${x:-$(touch {m})}"),
    ("assign-expansion", "echo ${x:=$(touch {m})}"),
    ("subscript-expansion", "echo ${x[$(touch {m})]}"),
    ("nested-default", 'echo "${x:-${y:-$(touch {m})}}"'),
    ("length-of-subscript", "echo ${#BASH_ARGV[$(touch {m})]}"),
    ("here-string", "cat <<< $(touch {m})"),
    ("here-string-quoted", 'cat <<< "$(touch {m})"'),
    ("here-doc", "cat <<EOF\n$(touch {m})\nEOF"),
    ("here-doc-dash", "cat <<-EOF\n\t`touch {m}`\nEOF"),
    ("process-substitution", "cat <(touch {m})"),
    ("output-process-substitution", "echo hi > >(touch {m})"),
    ("after-tilde", "echo ~$(touch {m})"),
    ("arithmetic", "echo $((1 + $(touch {m}) 0))"),
    ("old-arithmetic", "echo $[$(touch {m})]"),
    ("assignment-substitution", "X=$(touch {m}) echo hi"),
    ("brace-command", "{touch,{m}}"),
    ("glob-command", "/usr/bin/tou[c]h {m}"),
    ("question-glob-command", "/usr/bin/touc? {m}"),
    ("ansi-c-command", "$'\\x74ouch' {m}"),
    ("octal-command", "$'\\164ouch' {m}"),
    ("variable-command", "t=touch; $t {m}"),
    ("braced-variable-command", "${T:-touch} {m}"),
    ("eval", "eval touch {m}"),
    ("eval-quoted", "eval 'touch {m}'"),
    ("builtin-eval", "builtin eval touch {m}"),
    ("pipe-to-bash", "echo touch {m} | bash"),
    ("pipe-to-sh", "echo touch {m} | sh"),
    ("bash-s", "echo touch {m} | bash -s"),
    ("bash-here-string", "bash <<< 'touch {m}'"),
    ("function", "f() { touch {m}; }; f"),
    ("function-keyword", "function f { touch {m}; }; f"),
    ("trap", "trap 'touch {m}' EXIT; echo hi"),
    ("alias", "shopt -s expand_aliases\nalias echo='touch {m}'\necho hi"),
    ("source", "echo touch {m} > s_{m}.sh; source s_{m}.sh"),
    ("dot", "echo touch {m} > d_{m}.sh; . ./d_{m}.sh"),
    ("env", "env touch {m}"),
    ("env-unset-value", "env -u HOME touch {m}"),
    ("env-split-string", "env -S 'touch {m}'"),
    ("env-chdir", "env -C . touch {m}"),
    ("env-dashdash", "env -- touch {m}"),
    ("xargs", "echo {m} | xargs touch"),
    ("xargs-arg-file", "echo {m} > list_{m}; xargs -a list_{m} touch"),
    ("xargs-i", "echo {m} | xargs -i touch {}"),
    ("xargs-I", "echo {m} | xargs -I{} touch {}"),
    ("xargs-max-args", "echo {m} | xargs --max-args 1 touch"),
    ("xargs-echo-bash", "echo {m} | xargs -I% bash -c 'touch %'"),
    ("nice", "nice touch {m}"),
    ("nice-adjustment", "nice --adjustment 5 touch {m}"),
    ("nice-n", "nice -n 5 touch {m}"),
    ("timeout", "timeout 5 touch {m}"),
    ("timeout-signal", "timeout -s KILL 5 touch {m}"),
    ("nohup", "nohup touch {m}"),
    ("stdbuf", "stdbuf -o0 touch {m}"),
    ("setsid", "setsid -w touch {m}"),
    ("command", "command touch {m}"),
    ("exec", "exec touch {m}"),
    ("bash-c", "bash -c 'touch {m}'"),
    ("bash-c-dashdash", "bash -c -- 'touch {m}'"),
    ("bash-c-x", "bash -c -x 'touch {m}'"),
    ("bash-xc", "bash -xc 'echo hi; touch {m}'"),
    ("sh-c", "sh -c 'echo hi && touch {m}'"),
    ("echo-then-sh-c", "echo hi | sh -c 'touch {m}'"),
    ("find-exec", "find . -maxdepth 0 -exec touch {m} \\;"),
    ("find-execdir", "find . -maxdepth 0 -execdir touch {m} \\;"),
    ("find-exec-plus", "find . -maxdepth 0 -exec touch {m} {} +"),
    ("git-c-alias", "git -c alias.st='!touch {m}' st"),
    ("git-option-then-glob", "echo > init; git -p [i]nit {m} && echo hi"),
    (
        "git-config-env",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.st GIT_CONFIG_VALUE_0='!touch {m}' git st",
    ),
    ("bash-env", "echo touch {m} > b_{m}.sh; BASH_ENV=b_{m}.sh bash -c 'echo hi'"),
    ("python-inline", 'python3 -c \'open("{m}", "w")\''),
    ("time", "time touch {m}"),
    ("case", "case x in x) touch {m};; esac"),
    ("double-bracket", "[[ -n x ]] && touch {m}"),
    ("coproc", "coproc touch {m}"),
    ("allowed-then-denied", "ls -la; echo hi; touch {m}"),
    ("path-to-program", "./bin/git status"),
    ("path-variable", "PATH=./bin:$PATH git status"),
    ("exported-path", "export PATH=./bin:$PATH; git status"),
    ("declare-path", "declare -x PATH=./bin; git status"),
    ("pytest-addopts", "PYTEST_ADDOPTS='-p no:cacheprovider' touch {m}"),
]
# What a script the attacker wrote earlier would do if run.
FAKE_GIT = "#!/bin/sh\ntouch {marker}\n"


# Attacks whose command writes to a computed path (a variable, xargs' input, find's {}):
# only a person may approve them,
# so even --yes does not run them (the control-file rule), and they are left out of
# the check that every attack works once approved.
# Writes the analysis cannot place (xargs' input, after a change of folder): a person.
PERSON_ONLY = {"for", "output-process-substitution", "xargs", "xargs-arg-file", "xargs-i",
               "xargs-I", "xargs-max-args", "find-exec-plus", "env-chdir",
               "find-execdir"}  # fmt: skip
Run = tuple[Attack, subprocess.CompletedProcess[str]]


def prepare(attack: Attack) -> None:
    ws = attack.workspace
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    (ws / "bin").mkdir()
    served = " ".join(f"m{i}" for i, (_, line) in enumerate(ATTACKS) if "./bin" in line)
    (ws / "bin" / "git").write_text(FAKE_GIT.format(marker=served))
    (ws / "bin" / "git").chmod(0o755)
    for index, (_, line) in enumerate(ATTACKS):
        attack.add(command(line.replace("{m}", f"m{index}")))
    attack.add(command("touch ok"), command("echo allowed > echoed.txt"))


@pytest.fixture(autouse=True)
def isolated_state() -> None:
    """Nothing here runs agentls in-process: each run has its own state dir (harness.py),
    so the per-test temporary state folder of tests/conftest.py is not needed."""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    attack = Attack(tmp_path_factory.mktemp("allow"))
    prepare(attack)
    return attack, attack.run(*[f"--allow={rule}" for rule in RULES])


def test_every_attack_works_once_a_person_approves(tmp_path: Path) -> None:
    """The suite can fail: with --yes and no deny rule, the same script has its effects."""
    attack = Attack(tmp_path)
    prepare(attack)
    proc = attack.run("--yes")
    inert = [
        name for i, (name, _) in enumerate(ATTACKS) if not (attack.workspace / f"m{i}").exists()
    ]
    assert set(inert) == PERSON_ONLY, proc.stderr[-2000:]


def test_the_allowed_commands_run(run: Run) -> None:
    attack, proc = run
    assert (attack.workspace / "ok").exists(), proc.stderr
    assert (attack.workspace / "echoed.txt").read_text() == "allowed\n"


@pytest.mark.parametrize("index", range(len(ATTACKS)), ids=[name for name, _ in ATTACKS])
def test_an_allow_rule_approves_only_what_it_names(run: Run, index: int) -> None:
    attack, _ = run
    marker: Path = attack.workspace / f"m{index}"
    decision = attack.decisions().get(f"attack_{index}", {})
    assert not marker.exists(), f"{ATTACKS[index][1]!r} ran: {decision.get('source')}"
