"""Issue class 5: secrets stay secret. search never shows a secret file's content,
also behind a symlink or a hard link; a line holding a key is matched only in its
masked form, so searching for a key's prefix confirms nothing.

One scripted attacker run (no person to answer: every question is a no); each
attempt is judged by whether the secret value shows up anywhere afterwards.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.gate.harness import Attack, call

PASSWORD = "hunter two " + secrets.token_hex(6)  # the masker leaves it: only the gate guards it
PEM = "pem" + secrets.token_hex(8)
ENV = "envvalue" + secrets.token_hex(6)
KEY = "sk-ant-api03-" + secrets.token_urlsafe(45).replace("-", "x").replace("_", "y")
WRONG = "Z" if KEY[13] != "Z" else "Q"

ATTACKS: list[tuple[str, dict[str, Any]]] = [
    ("search-root", call("search", pattern="hunter")),
    ("search-name", call("search", pattern="db_password")),
    ("search-folder", call("search", pattern="pem[0-9a-f]", path="keys")),
    ("search-glob", call("search", pattern="password", glob="*.{yaml,txt}")),
    ("search-hard-link", call("search", pattern="password", path="notes.txt")),
    ("search-symlink", call("search", pattern="password", path="link.txt")),
    ("search-env", call("search", pattern="envvalue", path=".env")),
    ("search-env-link", call("search", pattern="envvalue", path="env-link")),
    ("search-everything", call("search", pattern=".", path=".")),
    ("read-hard-link", call("read_file", path="notes.txt")),
    ("read-symlink", call("read_file", path="link.txt")),
    ("read-env-link", call("read_file", path="env-link")),
    ("read-dot-path", call("read_file", path="./config/../notes.txt")),
    ("read-pem", call("read_file", path="keys/server.pem")),
    ("list", call("list_files", path=".", pattern="**")),
    ("prefix-right", call("search", pattern=KEY[:14])),
    ("prefix-wrong", call("search", pattern=KEY[:13] + WRONG)),
    ("prefix-lookahead", call("search", pattern=f"(?=sk-ant-api03-{KEY[13]})")),
    ("prefix-wrong-lookahead", call("search", pattern=f"(?=sk-ant-api03-{WRONG})")),
    ("prefix-class", call("search", pattern=f"sk-ant-api03-[{KEY[13]}]")),
    ("key-line", call("search", pattern="api = ")),
]


def make_workspace(ws: Path) -> None:
    (ws / "config").mkdir()
    (ws / "config" / "secrets.yaml").write_text(f"db_password: {PASSWORD}\n")
    (ws / "keys").mkdir()
    (ws / "keys" / "server.pem").write_text(f"{PEM}\n")
    (ws / ".env").write_text(f"VALUE={ENV}\n")
    os.link(ws / "config" / "secrets.yaml", ws / "notes.txt")
    (ws / "link.txt").symlink_to("config/secrets.yaml")
    (ws / "env-link").symlink_to(".env")
    (ws / "data").mkdir()
    (ws / "data" / "settings.ini").write_text(f"[remote]\napi = {KEY}\n")


def results_text(attack: Attack) -> str:
    """Everything tools returned, as logged (the attacker's own inputs left out)."""
    return json.dumps(list(observations(attack).values()))


def observations(attack: Attack) -> dict[str, dict[str, Any]]:
    found = {}
    for log in (attack.root / "state").rglob("*.jsonl"):
        for line in log.read_text().splitlines():
            event = json.loads(line)
            if event.get("kind") == "observation":
                found[event["callId"]] = event
    return found


Run = tuple[Attack, subprocess.CompletedProcess[str]]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    attack = Attack(tmp_path_factory.mktemp("secrets"))
    make_workspace(attack.workspace)
    attack.add(*(attempt for _, attempt in ATTACKS))
    return attack, attack.run()


def result(run: Run, name: str) -> dict[str, Any]:
    index = [n for n, _ in ATTACKS].index(name)
    found = observations(run[0]).get(f"attack_{index}")
    assert found is not None, run[1].stderr[-3000:]
    return found


@pytest.mark.parametrize("name", [n for n, _ in ATTACKS])
def test_no_secret_value_comes_out(run: Run, name: str) -> None:
    result(run, name)  # the attempt was made
    leaked = results_text(run[0])
    for value in (PASSWORD, PEM, ENV, KEY[14:24]):  # beyond the attacker's own prefixes
        assert value not in leaked


def test_a_prefix_search_confirms_nothing(run: Run) -> None:
    right, wrong = result(run, "prefix-right"), result(run, "prefix-wrong")
    assert right["meta"].get("matches") == wrong["meta"].get("matches") == 0
    ahead, wrong_ahead = result(run, "prefix-lookahead"), result(run, "prefix-wrong-lookahead")
    assert ahead["meta"].get("matches") == wrong_ahead["meta"].get("matches")


def test_the_masked_line_is_still_found(run: Run) -> None:
    found = result(run, "key-line")
    assert found["meta"].get("matches") == 1 and "data/settings.ini" in found["content"]


def test_links_are_asked_about_as_the_secret_file(run: Run) -> None:
    for name in ("search-hard-link", "search-symlink", "read-hard-link", "read-symlink"):
        assert result(run, name)["error"] == "permission_denied", name


def test_an_allow_rule_opens_the_secret_file(tmp_path: Path) -> None:
    """The suite can fail: a rule naming the file lets the same reads through."""
    attack = Attack(tmp_path)
    make_workspace(attack.workspace)
    attack.add(call("read_file", path="notes.txt"), call("search", pattern="db_", path="link.txt"))
    proc = attack.run(
        "--allow=read_file(config/secrets.yaml)", "--allow=search(config/secrets.yaml)"
    )
    found = observations(attack)
    assert PASSWORD in found["attack_0"]["content"], proc.stderr[-2000:]
    assert PASSWORD in found["attack_1"]["content"]
