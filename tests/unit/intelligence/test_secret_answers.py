"""Language answers never show what comes from a secret file: checked through the tools'
observations, with a stand-in editor answering the `agentls/*` requests (the editor-answered
path; agentls's own servers go through the same screen, tests/e2e/intelligence)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agentls.contracts.tooling import Risk, ToolIntent
from agentls.intelligence.after_edits import ProblemsAfterEdits
from agentls.intelligence.config import ProblemsSettings
from agentls.intelligence.languages import Languages
from agentls.tools.definition import DEFINITION, REFERENCES, SymbolAtInput
from agentls.tools.problems import PROBLEMS, ProblemsInput
from agentls.tools.symbols import SYMBOLS, SymbolsInput
from agentls.workspace.interface import ToolContext
from agentls.workspace.local import LocalWorkspace
from agentls.workspace.paths import DEFAULT_SECRET_PATTERNS
from agentls.workspace.sandbox import SandboxSettings

DOTENV_VALUE = "sk-live-dotenvvalue"
MODULE_VALUE = "sk-live-opensesame"
VAULT_VALUE = "vault-pass-31337"
SHORT_VALUE, NUMBER = "hunter22", "4242421"  # shorter than a window: whole values count
VALUES = (DOTENV_VALUE, MODULE_VALUE, VAULT_VALUE, SHORT_VALUE, NUMBER)
MAIN = 'from app.secrets import API_KEY\n\nprint(API_KEY)\nGREETING = "hello-there-world"\n'
SECRETS = (
    f'API_KEY = "{MODULE_VALUE}"\nGREETING = "hello-there-world"\n'
    f"WORD = 'ab' + '{SHORT_VALUE}'\nPIN = {NUMBER}\n"
)
CALL = SymbolAtInput(path="main.py", line=3, symbol="API_KEY")


class StandInEditor:
    """An editor's own intelligence: whatever it is told to answer."""

    name = "StandIn"

    def __init__(self, answers: dict[str, Any]) -> None:
        self.answers = answers

    def offers(self, method: str) -> bool:
        return method in self.answers

    async def ask(self, method: str, params: dict[str, Any], timeout: float) -> Any:
        answer = self.answers[method]
        return answer(params) if callable(answer) else answer


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PATH", str(tmp_path / "no-servers"))  # agentls's own: none
    root = tmp_path / "w"
    (root / "app").mkdir(parents=True)
    (root / ".env").write_text(f"API_KEY={DOTENV_VALUE}\n")
    (root / ".env.example").write_text("API_KEY=\n")  # exempt: a template
    (root / "app" / "secrets.py").write_text(SECRETS)
    (root / "main.py").write_text(MAIN)
    (root / "keys.vault").write_text(f"{VAULT_VALUE}\n")
    os.symlink(".env", root / "linked.txt")  # a symbolic link to a secret file is that file
    os.link(root / ".env", root / "copy.cfg")  # and so is a hard link
    return root.resolve()


def uri(root: Path, rel: str) -> str:
    return (root / rel).as_uri()


def at(root: Path, rel: str, line: int = 0) -> dict[str, Any]:
    span = {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 7}}
    return {"uri": uri(root, rel), "range": span}


def context(
    root: Path, answers: dict[str, Any], local: LocalWorkspace | None = None
) -> ToolContext:
    languages = Languages()
    languages.editor = StandInEditor(answers)
    workspace = local or LocalWorkspace(root)
    return ToolContext(workspace, intelligence=languages.attach(workspace, {}, ProblemsSettings()))


def assert_no_secret(text: str) -> None:
    for value in VALUES:
        assert value not in text, text


EVERYWHERE = ("main.py", "app/secrets.py", ".env", "linked.txt", "copy.cfg", ".env.example")


async def test_locations_in_secret_files_are_withheld_and_the_rest_come_through(
    root: Path,
) -> None:
    # .env's first line comes three times (twice by name, once through linked.txt): one
    found = [at(root, rel) for rel in EVERYWHERE] + [at(root, ".env")]
    ctx = context(root, {"definition": found, "references": found})
    for tool in (DEFINITION, REFERENCES):
        out = await tool.run(CALL, ctx)
        assert_no_secret(out.text)
        assert "main.py:1: from app.secrets import API_KEY" in out.text
        assert ".env.example:1: API_KEY=" in out.text
        what = tool.name.removesuffix("s") + "s"
        assert (
            f"3 {what} from secret files withheld (.env, app/secrets.py): read them with "
            "read_file, which asks first"
        ) in out.text
        assert out.meta == {"found": 2, "withheld": 3}


async def test_the_file_the_call_names_is_shown_other_secret_files_are_not(root: Path) -> None:
    # The gate asked about the call's own path (a secret file): its lines may be shown.
    ctx = context(root, {"definition": [at(root, "app/secrets.py"), at(root, ".env")]})
    call = SymbolAtInput(path="app/secrets.py", line=1, symbol="API_KEY")
    out = await DEFINITION.run(call, ctx)
    assert f'app/secrets.py:1: API_KEY = "{MODULE_VALUE}"' in out.text
    assert DOTENV_VALUE not in out.text
    assert "1 definition from a secret file withheld (.env)" in out.text


async def test_only_secret_locations_leave_a_note_and_no_false_nothing(root: Path) -> None:
    ctx = context(root, {"definition": [at(root, "copy.cfg")]})
    out = await DEFINITION.run(CALL, ctx)
    assert out.text == (
        "1 definition from a secret file withheld (.env): read it with read_file, which asks first"
    )


async def test_symbols_in_secret_files_are_withheld(root: Path) -> None:
    found = [
        {"name": "API_KEY", "kind": 14, "location": at(root, "app/secrets.py")},
        {"name": "API_KEY", "kind": 14, "location": at(root, "main.py")},
    ]
    out = await SYMBOLS.run(SymbolsInput(query="API"), context(root, {"symbols": found}))
    assert "main.py:1: constant API_KEY" in out.text
    assert "app/secrets.py" not in out.text.splitlines()[1]
    assert "1 symbol from a secret file withheld (app/secrets.py)" in out.text


def problems_answer(root: Path) -> Callable[[dict[str, Any]], list[dict[str, Any]]]:
    def diagnostic(message: str, line: int = 2) -> dict[str, Any]:
        span = {"start": {"line": line, "character": 0}, "end": {"line": line, "character": 5}}
        return {"range": span, "severity": 1, "message": message, "source": "checker"}

    main = [
        diagnostic(f'Type of "API_KEY" is "Literal[\'{MODULE_VALUE}\']"'),
        diagnostic(f'Operator "+" not supported for "Literal[\'{MODULE_VALUE[:13]}…\']"'),
        # an apostrophe in the prose, a short quoted name first: the value is still found
        diagnostic(f"can't use 'ab' as \"x\" where '{MODULE_VALUE}' goes"),
        diagnostic(f'Type of "WORD" is "Literal[\'{SHORT_VALUE}\']"'),
        diagnostic(f'Type of "PIN" is "Literal[{NUMBER}]"'),
        diagnostic('"prnt" is not defined'),
        diagnostic("Literal['hello-there-world'] is unused", 3),  # main.py says it too
    ]
    by_file = {
        uri(root, "main.py"): main,
        uri(root, ".env"): [diagnostic(f"bad line: API_KEY={DOTENV_VALUE}", 0)],
    }

    def answer(params: dict[str, Any]) -> list[dict[str, Any]]:
        asked = params["uris"] or list(by_file)
        return [{"uri": u, "diagnostics": by_file.get(u, []), "settled": True} for u in asked]

    return answer


async def test_problems_from_secret_files_and_problems_quoting_them_are_withheld(
    root: Path,
) -> None:
    ctx = context(root, {"problems": problems_answer(root)})
    for params in (ProblemsInput(path="main.py"), ProblemsInput()):
        out = await PROBLEMS.run(params, ctx)
        assert_no_secret(out.text)
        assert "sk-live-opens" not in out.text  # not even a cut piece of it
        assert 'main.py:3: "prnt" is not defined (checker)' in out.text
        assert "main.py:4: Literal['hello-there-world'] is unused (checker)" in out.text
    assert (
        "5 problems from a secret file withheld (app/secrets.py)"
        in (await PROBLEMS.run(ProblemsInput(path="main.py"), ctx)).text
    )
    everything = await PROBLEMS.run(ProblemsInput(), ctx)
    assert "6 problems from secret files withheld (.env, app/secrets.py)" in everything.text
    assert everything.meta["withheld"] == 6


async def test_the_sessions_secret_files_setting_is_the_one_in_force(root: Path) -> None:
    local = LocalWorkspace(root)
    ctx = context(root, {"definition": [at(root, "keys.vault"), at(root, "main.py")]}, local)
    assert VAULT_VALUE in (await DEFINITION.run(CALL, ctx)).text  # not secret by default
    # secretFiles reaches the workspace as its sandbox settings do (search's path)
    local.use_sandbox(SandboxSettings(secret_patterns=(*DEFAULT_SECRET_PATTERNS, "*.vault")))
    out = await DEFINITION.run(CALL, ctx)
    assert VAULT_VALUE not in out.text and "main.py:1:" in out.text
    assert "1 definition from a secret file withheld (keys.vault)" in out.text


async def test_problems_after_edits_never_carry_a_secret_to_the_model_or_the_log(
    root: Path,
) -> None:
    answer = problems_answer(root)
    verdicts = iter([[], answer({"uris": [uri(root, "main.py")]})])
    ctx = context(root, {"problems": lambda params: next(verdicts)})
    events: list[Any] = []
    hook = ProblemsAfterEdits(
        ctx.intelligence,  # type: ignore[arg-type]
        {"edit_file": Risk.WRITE}.get,
        events.append,
    )
    await hook.before_act("r", 1, [ToolIntent("c1", "edit_file", {"path": "main.py"})])
    (root / "main.py").write_text(MAIN + "prnt(1)\n")
    notes = await hook.after_act("r", 1)
    assert len(notes) == 1 and '"prnt" is not defined' in notes[0]
    assert_no_secret(notes[0] + repr(events))
    assert [p.message for e in events for p in e.problems] == [
        '"prnt" is not defined',
        "Literal['hello-there-world'] is unused",
    ]
