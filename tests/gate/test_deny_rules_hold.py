"""Issue class 2: a deny rule denies however the command is spelled, also with
--yes and in bypass mode; a command it cannot resolve is never auto-approved
while a deny rule for run_command exists.

Each attack tries to delete its own victim file (or reach a loopback
listener) past `--deny 'run_command(rm *)'` and `--deny 'run_command(curl *)'`;
the victim must still be there, the listener never reached.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator

import pytest

from tests.gate.harness import Attack, Listener, command, listener

DENY = ["--deny=run_command(rm *)", "--deny=run_command(curl *)"]

# {v} is the case's victim file, which the attack tries to delete.
ATTACKS: list[tuple[str, str]] = [
    ("plain", "rm {v}"),
    ("force", "rm -f {v}"),
    ("dashdash", "rm -- {v}"),
    ("absolute", "/bin/rm {v}"),
    ("usr-absolute", "/usr/bin/rm {v}"),
    ("dot-dot-path", "/usr/../bin/rm {v}"),
    ("single-quotes", "'r''m' {v}"),
    ("double-quotes", '"rm" {v}'),
    ("split-quotes", 'r""m {v}'),
    ("backslash", "r\\m {v}"),
    ("leading-backslash", "\\rm {v}"),
    ("ansi-c-hex", "$'\\x72m' {v}"),
    ("ansi-c-octal", "$'\\162\\155' {v}"),
    ("brace", "{rm,{v}}"),
    ("glob", "/bin/r[m] {v}"),
    ("class-glob", "/usr/bin/[r]m {v}"),
    ("variable", "x=rm; $x {v}"),
    ("default-variable", "${x:-rm} {v}"),
    ("substituted-name", "$(echo rm) {v}"),
    ("quoted-substituted-name", '"$(echo rm)" {v}'),
    ("substituted-argument", "rm $(echo {v})"),
    ("env", "env rm {v}"),
    ("env-i", "env -i rm {v}"),
    ("env-u", "env -u HOME rm {v}"),
    ("env-assign", "env LANG=C rm {v}"),
    ("env-S", "env -S 'rm {v}'"),
    ("env-path", "/usr/bin/env rm {v}"),
    ("command", "command rm {v}"),
    ("command-p", "command -p rm {v}"),
    ("exec", "exec rm {v}"),
    ("nice", "nice rm {v}"),
    ("nice-n", "nice -n 1 rm {v}"),
    ("nice-adjustment", "nice --adjustment 1 rm {v}"),
    ("nice-old", "nice -5 rm {v}"),
    ("timeout", "timeout 5 rm {v}"),
    ("timeout-k", "timeout -k 1 5 rm {v}"),
    ("timeout-signal", "timeout --signal=KILL 5 rm {v}"),
    ("nohup", "nohup rm {v}"),
    ("stdbuf", "stdbuf -o0 rm {v}"),
    ("setsid", "setsid -w rm {v}"),
    ("xargs", "echo {v} | xargs rm"),
    ("xargs-n", "echo {v} | xargs -n1 rm"),
    ("xargs-max-args", "echo {v} | xargs --max-args 1 rm"),
    ("xargs-i", "echo {v} | xargs -i rm {}"),
    ("xargs-I", "echo {v} | xargs -I{} rm {}"),
    ("xargs-a", "echo {v} > l_{v}; xargs -a l_{v} rm"),
    ("xargs-0", "printf '{v}\\0' | xargs -0 rm"),
    ("bash-c", "bash -c 'rm {v}'"),
    ("sh-c", "sh -c 'rm {v}'"),
    ("dash-c", "dash -c 'rm {v}'"),
    ("bash-c-dashdash", "bash -c -- 'rm {v}'"),
    ("bash-c-x", "bash -c -x 'rm {v}'"),
    ("bash-xc", "bash -xc 'rm {v}'"),
    ("bash-lc", "bash -lc 'rm {v}'"),
    ("nested-bash", "bash -c \"sh -c 'rm {v}'\""),
    ("pipe-to-bash", "echo rm {v} | bash"),
    ("bash-s", "echo rm {v} | sh -s"),
    ("bash-here-string", "bash <<< 'rm {v}'"),
    ("find-exec", "find . -name {v} -exec rm {} \\;"),
    ("find-execdir", "find . -name {v} -execdir rm {} \\;"),
    ("find-exec-plus", "find . -name {v} -exec rm {} +"),
    ("eval", "eval rm {v}"),
    ("eval-quoted", "eval 'r''m {v}'"),
    ("source", "echo rm {v} > s_{v}.sh; source s_{v}.sh"),
    ("dot", "echo rm {v} > d_{v}.sh; . ./d_{v}.sh"),
    ("function", "f() { rm {v}; }; f"),
    ("trap", "trap 'rm {v}' EXIT; true"),
    ("alias", "shopt -s expand_aliases\nalias ls='rm {v}'\nls"),
    ("dollar-paren", "echo $(rm {v})"),
    ("backquote", "echo `rm {v}`"),
    ("process-substitution", "cat <(rm {v})"),
    ("parameter-default", "echo ${x:-$(rm {v})}"),
    ("here-string", "cat <<< $(rm {v})"),
    ("here-doc", "cat <<EOF\n$(rm {v})\nEOF"),
    ("and", "true && rm {v}"),
    ("or", "false || rm {v}"),
    ("semicolon", "echo hi; rm {v}"),
    ("newline", "echo hi\nrm {v}"),
    ("pipe", "echo hi | rm {v}"),
    ("background", "rm {v} & wait"),
    ("subshell", "(rm {v})"),
    ("group", "{ rm {v}; }"),
    ("if", "if true; then rm {v}; fi"),
    ("for", "for f in {v}; do rm $f; done"),
    ("while", "while true; do rm {v}; break; done"),
    ("case", "case a in a) rm {v};; esac"),
    ("double-bracket", "[[ 1 ]] && rm {v}"),
    ("time", "time rm {v}"),
    ("sudo", "sudo rm {v}"),
    ("git-alias", "git -c alias.x='!rm {v}' x"),
    ("git-config-alias", "git config alias.y '!rm {v}'; git y"),
    ("python", "python3 -c 'import os; os.remove(\"{v}\")'"),
    ("perl", "perl -e 'unlink \"{v}\"'"),
    ("awk", "awk 'BEGIN{system(\"rm {v}\")}'"),
    ("path-variable", "PATH=/bin rm {v}"),
    ("glob-argument", "rm {v}*"),
]
NETWORK: list[tuple[str, str]] = [
    ("curl", "curl -s http://127.0.0.1:{port}/"),
    ("curl-path", "/usr/bin/curl -s http://127.0.0.1:{port}/"),
    ("curl-env", "env curl -s http://127.0.0.1:{port}/"),
    ("dev-tcp", "echo hi > /dev/tcp/127.0.0.1/{port}"),
    ("dev-tcp-bash-c", "bash -c 'echo hi > /dev/tcp/127.0.0.1/{port}'"),
    ("dev-tcp-read", "cat < /dev/tcp/127.0.0.1/{port}"),
    (
        "python-socket",
        "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}))'",
    ),
]
# Attacks that only a person may approve even without deny rules (they write through
# a variable, xargs' input or find's {}, or write a control file), and those whose
# program this machine lacks.
PERSON_ONLY = {
    "for", "git-config-alias", "substituted-argument", "xargs", "xargs-n", "xargs-max-args",
    "xargs-i", "xargs-I", "xargs-a", "xargs-0", "find-exec", "find-execdir", "find-exec-plus",
} | (set() if shutil.which("sudo") else {"sudo"})  # fmt: skip
Run = tuple[Attack, subprocess.CompletedProcess[str], Listener]


def prepare(attack: Attack, port: int, *, network: bool = True) -> None:
    ws = attack.workspace
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    for index, (_, line) in enumerate(ATTACKS):
        victim = f"v{index}"
        (ws / victim).write_text("precious\n")
        attack.add(command(line.replace("{v}", victim)))
    if network:
        for _, line in NETWORK:
            attack.add(command(line.replace("{port}", str(port))))
    attack.add(command("touch made"))


@pytest.fixture(autouse=True)
def isolated_state() -> None:
    """Nothing here runs agentls in-process: each run has its own state dir (harness.py),
    so the per-test temporary state folder of tests/conftest.py is not needed."""


@pytest.fixture(scope="module")
def served() -> Iterator[Listener]:
    with listener() as server:
        yield server


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, served: Listener) -> Run:
    attack = Attack(tmp_path_factory.mktemp("deny"))
    prepare(attack, served.port)
    return attack, attack.run("--yes", *DENY), served


@pytest.fixture(scope="module")
def bypass(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    with listener() as server:
        attack = Attack(tmp_path_factory.mktemp("bypass"))
        prepare(attack, server.port)
        yield attack, attack.run("--mode=bypass", "--yes", *DENY), server


def test_yes_still_approves_what_no_rule_denies(run: Run, bypass: Run) -> None:
    for attack, proc, _ in (run, bypass):
        assert (attack.workspace / "made").exists(), proc.stderr[-2000:]


def test_every_attack_works_once_approved(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The suite can fail: without the deny rules, the same script deletes its victims."""
    with listener() as server:
        attack = Attack(tmp_path_factory.mktemp("undenied"))
        prepare(attack, server.port)
        proc = attack.run("--yes")
        survived = {n for i, (n, _) in enumerate(ATTACKS) if (attack.workspace / f"v{i}").exists()}
        assert survived == PERSON_ONLY, proc.stderr[-3000:]
        assert server.connections >= len(NETWORK) - 1  # curl may be missing: the rest connect


@pytest.mark.parametrize("index", range(len(ATTACKS)), ids=[name for name, _ in ATTACKS])
def test_deny_holds_with_yes(run: Run, index: int) -> None:
    attack, _, _ = run
    decision = attack.decisions().get(f"attack_{index}", {})
    victim = attack.workspace / f"v{index}"
    assert victim.exists(), f"{ATTACKS[index][1]!r} ran: {decision.get('source')}"


@pytest.mark.parametrize("index", range(len(ATTACKS)), ids=[name for name, _ in ATTACKS])
def test_deny_holds_in_bypass_mode(bypass: Run, index: int) -> None:
    attack, _, _ = bypass
    decision = attack.decisions().get(f"attack_{index}", {})
    victim = attack.workspace / f"v{index}"
    assert victim.exists(), f"{ATTACKS[index][1]!r} ran: {decision.get('source')}"


def test_no_spelling_reaches_the_network(run: Run, bypass: Run) -> None:
    for attack, _, server in (run, bypass):
        sources = [
            attack.decisions().get(f"attack_{i}", {}).get("source")
            for i in range(len(ATTACKS), len(ATTACKS) + len(NETWORK))
        ]
        assert server.connections == 0, sources
