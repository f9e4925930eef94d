"""The permission policy: rules first (deny beats ask beats allow), then the mode.

Tool output never reaches this module: only the call's tool name, risk and
subject do, so nothing a tool returns can change a permission.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agentls.contracts.decisions import PolicyDecision, Verdict
from agentls.contracts.tooling import Risk
from agentls.permissions.modes import Mode
from agentls.permissions.rules import Rule, RuleSet, has_shell_control
from agentls.workspace.interface import SubjectKind
from agentls.workspace.paths import is_secret_path


@dataclass
class PermissionPolicy:
    rules: RuleSet = field(default_factory=RuleSet)
    mode: Mode = Mode.DEFAULT
    # In the editor, edits are reviewed as a diff by the workspace itself, so
    # the gate lets them through to that review instead of asking twice.
    edits_reviewed_by_workspace: bool = False
    # "Always allow" answers of this session.
    session_allow: list[Rule] = field(default_factory=list)

    def evaluate(self, tool: str, risk: Risk, kind: SubjectKind, subject: str) -> PolicyDecision:
        for rule in self.rules.deny:
            if rule.matches(tool, kind, subject):
                return PolicyDecision(Verdict.DENY, f"deny rule {rule}", stop_run=rule.stop)
        secret = kind == "path" and is_secret_path(subject)
        for rule in self.rules.ask:
            if rule.matches(tool, kind, subject):
                return self._ask(f"ask rule {rule}", secret)
        for rule in [*self.rules.allow, *self.session_allow]:
            if not rule.matches(tool, kind, subject):
                continue
            if secret and rule.pattern is None:
                continue  # a bare tool rule is no explicit permission for a secret file
            if kind == "command" and has_shell_control(subject):
                continue  # compound commands always go to a person
            return PolicyDecision(Verdict.ALLOW, f"allow rule {rule}")
        if secret:
            return PolicyDecision(Verdict.ASK, "secret file needs explicit permission")
        return self._by_mode(risk)

    def _ask(self, source: str, secret: bool) -> PolicyDecision:
        if self.mode is Mode.BYPASS and not secret:
            return PolicyDecision(Verdict.ALLOW, f"{source} (bypass mode)")
        return PolicyDecision(Verdict.ASK, source)

    def _by_mode(self, risk: Risk) -> PolicyDecision:
        mode = self.mode
        if risk is Risk.READ:
            return PolicyDecision(Verdict.ALLOW, "reads are allowed")
        if mode is Mode.PLAN:
            return PolicyDecision(Verdict.DENY, "plan mode is read-only")
        if mode is Mode.BYPASS:
            return PolicyDecision(Verdict.ALLOW, "bypass mode")
        if risk is Risk.WRITE:
            if mode is Mode.ACCEPT_EDITS:
                return PolicyDecision(Verdict.ALLOW, "accept-edits mode")
            if self.edits_reviewed_by_workspace:
                return PolicyDecision(Verdict.ALLOW, "edit goes to review in the editor")
            return PolicyDecision(Verdict.ASK, "edits need review")
        return PolicyDecision(Verdict.ASK, "commands need approval")

    def remember(self, rule: Rule) -> None:
        if rule not in self.session_allow:
            self.session_allow.append(rule)


def suggested_rule(tool: str, kind: SubjectKind, subject: str) -> Rule:
    """The narrowest rule covering this call: what "always allow" adds."""
    if kind in ("path", "command") and subject:
        return Rule(tool, subject)
    return Rule(tool, None)
