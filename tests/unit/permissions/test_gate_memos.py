"""What the gate remembers between calls follows what it was built from: new secret
patterns, a changed protectedPaths list or new rules give new answers at once."""

from __future__ import annotations

from pathlib import Path

from agentls.contracts.decisions import Verdict
from agentls.contracts.tooling import Risk
from agentls.permissions.modes import Mode
from agentls.permissions.policy import PermissionPolicy
from agentls.permissions.rules import Rule, RuleSet
from agentls.workspace.paths import SecretFiles, SecretPaths, secret_paths


def test_a_remembered_secret_verdict_belongs_to_its_patterns() -> None:
    default = secret_paths((".env", "*.pem"))
    assert default("config/.env") and not default("vault/token.txt")
    other = secret_paths(("vault/*",))
    assert other is not default
    assert other("vault/token.txt") and not other("config/.env")
    assert default("config/.env") and not default("vault/token.txt")  # still its own


def test_the_policy_follows_replaced_secret_patterns() -> None:
    policy = PermissionPolicy(mode=Mode.DEFAULT)
    assert policy.evaluate("read_file", Risk.READ, "path", "vault/token.txt").verdict is (
        Verdict.ALLOW
    )
    assert policy.evaluate("read_file", Risk.READ, "path", ".env").verdict is Verdict.ASK
    policy.secret_patterns = ("vault/*",)  # as a settings refresh does
    assert policy.evaluate("read_file", Risk.READ, "path", "vault/token.txt").verdict is (
        Verdict.ASK
    )
    assert policy.evaluate("read_file", Risk.READ, "path", ".env").verdict is Verdict.ALLOW


def test_the_policy_follows_new_rules_for_a_path_it_judged() -> None:
    policy = PermissionPolicy(mode=Mode.DEFAULT)
    assert policy.evaluate("read_file", Risk.READ, "path", "src/a.py").verdict is Verdict.ALLOW
    policy.rules = RuleSet(deny=[Rule("read_file", "src/**")])
    assert policy.evaluate("read_file", Risk.READ, "path", "src/a.py").verdict is Verdict.DENY
    policy.rules.deny.clear()
    policy.rules.ask.append(Rule("read_file", "src/*.py"))
    assert policy.evaluate("read_file", Risk.READ, "path", "src/a.py").verdict is Verdict.ASK


def test_a_full_memo_starts_again_and_keeps_answering() -> None:
    paths = SecretPaths(("*.key",))
    for i in range(SecretPaths.MEMO + 10):
        assert paths(f"k/{i}.key") and not paths(f"k/{i}.txt")
    assert len(paths._seen) <= SecretPaths.MEMO


def test_protected_paths_follow_the_list() -> None:
    rules = RuleSet()
    assert not rules.is_protected("deploy/prod.yaml")
    rules.protected.append("deploy/**")
    assert rules.is_protected("deploy/prod.yaml")
    rules.protected.clear()
    assert not rules.is_protected("deploy/prod.yaml")
    assert rules.is_protected(".git/config")


def test_secret_files_name_check_uses_its_patterns(tmp_path: Path) -> None:
    assert SecretFiles(tmp_path, ("vault/*",)).is_secret("vault/a")
    assert not SecretFiles(tmp_path).is_secret("vault/a")
    assert SecretFiles(tmp_path).is_secret("a/.env")
