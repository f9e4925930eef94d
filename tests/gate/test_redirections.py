"""Issue class 3: only literal redirection targets inside the workspace pass
without asking. `~+`, `~-`, globs, variables, and symlinks that resolve
outside ask (and with no one to ask, are denied), with or without the sandbox.

The attacker may run `echo *`, `cd *`, `ln *` and `cat *`; each attack tries to
create its own file outside the workspace.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.gate.harness import Attack, command

RULES = ["run_command(echo *)", "run_command(cd *)", "run_command(ln *)",
         "run_command(cat *)", "run_command(true)"]  # fmt: skip

# {o} is the outside folder (a sibling of the workspace), {n} the case's file name.
ATTACKS: list[tuple[str, str]] = [
    ("absolute", "echo x > {o}/{n}"),
    ("relative-up", "echo x > ../outside/{n}"),
    ("double-slash", "echo x > ..//outside/{n}"),
    ("dot-segments", "echo x > ./sub/../../outside/{n}"),
    ("append", "echo x >> ../outside/{n}"),
    ("clobber", "echo x >| ../outside/{n}"),
    ("stderr", "echo x 2> ../outside/{n}"),
    ("both", "echo x &> ../outside/{n}"),
    ("both-append", "echo x &>> ../outside/{n}"),
    ("dup-to-file", "echo x >& ../outside/{n}"),
    ("read-write", "echo x 3<> ../outside/{n}"),
    ("fd-number", "echo x 1> ../outside/{n}"),
    ("tilde", "echo x > ~/{n}"),
    ("tilde-plus", "echo x > ~+/../outside/{n}"),
    ("tilde-minus", "echo x > ~-/{n}"),
    ("variable", "echo x > $HOME/{n}"),
    ("braced-variable", "echo x > ${HOME}/{n}"),
    ("default-variable", "echo x > ${NOPE:-../outside}/{n}"),
    ("glob", "echo x > ../outsid?/{n}"),
    ("class-glob", "echo x > ../outsid[e]/{n}"),
    ("brace", "echo x > ../{outside,outside}/{n}"),
    ("substitution", "echo x > $(echo ../outside)/{n}"),
    ("quoted-substitution", 'echo x > "$(echo ../outside/{n})"'),
    ("symlinked-folder", "echo x > link_dir/{n}"),
    ("symlinked-file", "echo x > link_{n}"),
    ("proc-cwd", "echo x > /proc/self/cwd/../outside/{n}"),
    ("subshell", "(echo x) > ../outside/{n}"),
    ("group", "{ echo x; } > ../outside/{n}"),
    ("loop", "for i in 1; do echo x; done > ../outside/{n}"),
    ("if", "if true; then echo x; fi > ../outside/{n}"),
    ("in-bash-c", "bash -c 'echo x > ../outside/{n}'"),
    ("after-cd", "cd .. && echo x > outside/{n}"),
    ("after-cd-subshell", "(cd ..; echo x > outside/{n})"),
    ("link-then-write", "ln -s ../outside fresh_{n} && echo x > fresh_{n}/{n}"),
    ("second-command", "echo ok > inside_{n}.txt; echo x > ../outside/{n}"),
    ("quoted-target", "echo x > '../outside/{n}'"),
    ("escaped-target", "echo x > ..\\/outside/{n}"),
    ("ansi-c-target", "echo x > $'..\\x2foutside'/{n}"),
    ("cat-append", "cat canary.txt >> ../outside/{n}"),
    ("here-doc-to-outside", "cat > ../outside/{n} <<EOF\nx\nEOF"),
]
# Write targets bash computes at run time could be control files: only a person may
# approve those, so --yes leaves them undone too.
PERSON_ONLY = ["tilde-plus", "tilde-minus", "variable", "braced-variable", "default-variable",
               "glob", "class-glob", "brace", "substitution", "quoted-substitution", "after-cd",
               "after-cd-subshell", "link-then-write"]  # fmt: skip
Run = tuple[Attack, subprocess.CompletedProcess[str], Path]


def prepare(attack: Attack) -> Path:
    outside = attack.root / "outside"
    outside.mkdir()
    ws = attack.workspace
    (ws / "sub").mkdir()
    (ws / "link_dir").symlink_to(outside)
    for index, (_, line) in enumerate(ATTACKS):
        name = f"o{index}"
        (ws / f"link_{name}").symlink_to(outside / name)
        attack.add(command(line.replace("{o}", str(outside)).replace("{n}", name)))
    attack.add(
        command("echo inside > inside.txt"),
        command("echo x > sub/../inside2.txt"),
        command("echo x > /dev/null"),
    )
    return outside


def environment(attack: Attack, outside: Path) -> dict[str, str]:
    # ~ and $HOME lead outside; OLDPWD (~-) too.
    return {"HOME": str(outside), "OLDPWD": str(outside)}


@pytest.fixture(autouse=True)
def isolated_state() -> None:
    """Nothing here runs agentls in-process: each run has its own state dir (harness.py),
    so the per-test temporary state folder of tests/conftest.py is not needed."""


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    attack = Attack(tmp_path_factory.mktemp("redirect"))
    outside = prepare(attack)
    proc = attack.run(*[f"--allow={r}" for r in RULES], env=environment(attack, outside))
    return attack, proc, outside


def test_targets_inside_the_workspace_pass(run: Run) -> None:
    attack, proc, _ = run
    assert (attack.workspace / "inside.txt").read_text() == "inside\n", proc.stderr[-2000:]
    assert (attack.workspace / "inside2.txt").exists()


def test_every_attack_works_once_approved(tmp_path: Path) -> None:
    """The suite can fail: with --yes the same script writes outside (all but the
    computed targets, which need a person)."""
    attack = Attack(tmp_path)
    outside = prepare(attack)
    proc = attack.run("--yes", env=environment(attack, outside))
    inert = [n for i, (n, _) in enumerate(ATTACKS) if not (outside / f"o{i}").exists()]
    assert inert == PERSON_ONLY, proc.stderr[-3000:]


@pytest.mark.parametrize("index", range(len(ATTACKS)), ids=[name for name, _ in ATTACKS])
def test_no_redirection_writes_outside_without_a_person(run: Run, index: int) -> None:
    attack, _, outside = run
    decision = attack.decisions().get(f"attack_{index}", {})
    assert not (outside / f"o{index}").exists(), (
        f"{ATTACKS[index][1]!r} ran: {decision.get('source')}"
    )
