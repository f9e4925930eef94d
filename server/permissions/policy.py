"""The permission policy: rules first (deny beats ask beats allow), then the mode.

Tool output never reaches this module: only the call's tool name, risk and
subject do, so nothing a tool returns can change a permission.
"""

from __future__ import annotations

import dataclasses
import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from agentls.contracts.decisions import ApprovalAnswer, PolicyDecision, Verdict
from agentls.contracts.tooling import Risk
from agentls.permissions.modes import Mode
from agentls.permissions.rules import Rule, RuleSet, first_could_match, normalise_path
from agentls.permissions.shell import CommandAnalysis, SimpleCommand, analyse, inside_workspace
from agentls.workspace.control import is_own_path, own_paths
from agentls.workspace.globs import escape_path, escape_text
from agentls.workspace.interface import SubjectKind
from agentls.workspace.paths import DEFAULT_SECRET_PATTERNS, SecretPaths, secret_paths

# The mode's answers (decisions are frozen: one of each serves every call).
_READ = PolicyDecision(Verdict.ALLOW, "reads are allowed")
_PLAN = PolicyDecision(Verdict.DENY, "plan mode is read-only")
_BYPASS = PolicyDecision(Verdict.ALLOW, "bypass mode")
_ACCEPT_EDITS = PolicyDecision(Verdict.ALLOW, "accept-edits mode")
_REVIEWED = PolicyDecision(Verdict.ALLOW, "edit goes to review in the editor")
_EDIT = PolicyDecision(Verdict.ASK, "edits need review")
_EXTERNAL = PolicyDecision(Verdict.ASK, "external tools need approval")
_COMMAND = PolicyDecision(Verdict.ASK, "commands need approval")
_SECRET = PolicyDecision(Verdict.ASK, "secret file needs explicit permission")
_MEMORY = PolicyDecision(Verdict.ASK, "a memory is kept only with a yes")


@dataclass
class SessionRuleChange:
    """The rules an answer added to the session (each new), for the log."""

    allow: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.allow or self.deny)


@dataclass
class PermissionPolicy:
    rules: RuleSet = field(default_factory=RuleSet)
    mode: Mode = Mode.DEFAULT
    # In the editor, edits are reviewed as a diff by the workspace itself, so
    # the gate lets them through to that review instead of asking twice.
    edits_reviewed_by_workspace: bool = False
    # "Always allow" answers of this session.
    session_allow: list[Rule] = field(default_factory=list)
    # "Always deny" answers of this session, kept in `rules` over settings changes.
    session_deny: list[Rule] = field(default_factory=list)
    root: Path | None = None  # where commands run: redirections outside it need a person
    secret_patterns: tuple[str, ...] = DEFAULT_SECRET_PATTERNS

    # Compiled for the secret_patterns above, rebuilt when they are replaced.
    _secrets: SecretPaths | None = field(default=None, init=False, repr=False, compare=False)

    def evaluate(self, tool: str, risk: Risk, kind: SubjectKind, subject: str) -> PolicyDecision:
        if kind == "command":
            analysis = analyse(subject, self.root)
            decision = self._command(tool, risk, analysis)
            if not analysis.resolved or decision.verdict is Verdict.DENY:
                return decision
            # What runs unless a person who saw the line allows it: the line as judged.
            rendering = analysis.rendering()
            if rendering is None:
                why = "cannot be spelled back the way it was read: only a person may run it"
                return PolicyDecision(Verdict.ASK, why, person_only=True)
            return dataclasses.replace(decision, runs=rendering)
        rules = self.rules
        for rule in rules.deny:
            if rule.matches(tool, kind, subject):
                return PolicyDecision(Verdict.DENY, f"deny rule {rule}", stop_run=rule.stop)
        if risk is Risk.MEMORY:
            return _MEMORY  # no allow rule, ask rule or mode keeps a memory: only a yes to it
        path = kind == "path"
        if path and risk is Risk.WRITE and self._protected(subject):
            return self._control_file(subject)
        secret = path and self._is_secret(subject)
        for rule in rules.ask:
            if rule.matches(tool, kind, subject):
                return self._ask(f"ask rule {rule}", keep_asking=secret)
        for allow in (rules.allow, self.session_allow):
            for rule in allow:
                if not rule.matches(tool, kind, subject):
                    continue
                if secret and rule.pattern is None:
                    continue  # a bare tool rule is no explicit permission for a secret file
                return PolicyDecision(Verdict.ALLOW, f"allow rule {rule}")
        if secret:
            return _SECRET
        return self._by_mode(risk)

    def _is_secret(self, path: str) -> bool:
        secrets = self._secrets
        if secrets is None or secrets.patterns is not self.secret_patterns:
            secrets = self._secrets = secret_paths(self.secret_patterns)
        return secrets(path)

    def _command(self, tool: str, risk: Risk, analysis: CommandAnalysis) -> PolicyDecision:
        """Deny if any command could be denied; allow only what is fully resolved and
        named, every simple command of it, by allow rules."""
        denied = first_could_match(self.rules.deny, tool, analysis.commands)
        if denied is not None:
            rule, command = denied
            return PolicyDecision(
                Verdict.DENY, f"deny rule {rule} (matches `{command}`)", rule.stop
            )
        writes = self._control_writes(analysis)
        guarded = any(rule.applies_to(tool) for rule in self.rules.deny)
        if not analysis.resolved:
            why = "cannot be fully resolved: " + "; ".join(analysis.unresolved)
            if not guarded:
                if writes:
                    return self._needs_person(writes)
                return PolicyDecision(Verdict.ASK, why)
            why += (
                ". While deny rules exist, only a person may approve such a command "
                "(--yes and bypass mode do not): answer the prompt at a terminal or in "
                "the editor, or spell it without that construct so that rules can see "
                "every command it runs"
            )
            if self.mode is Mode.BYPASS:
                return PolicyDecision(Verdict.DENY, why)
            return PolicyDecision(Verdict.ASK, why, person_only=True, writes_control=bool(writes))
        if writes:
            return self._needs_person(writes)
        if analysis.asks:
            return PolicyDecision(Verdict.ASK, "always asks: " + "; ".join(analysis.asks))
        asked = first_could_match(self.rules.ask, tool, analysis.commands)
        if asked is not None:
            rule, command = asked
            return self._ask(f"ask rule {rule} (matches `{command}`)")
        covering = self._covering(tool, analysis.commands)
        if covering is not None:
            return PolicyDecision(Verdict.ALLOW, f"allow rule {', '.join(covering)}")
        if guarded and analysis.unknown:
            return self._unknown_programs(analysis.unknown)
        return self._by_mode(risk)

    def _unknown_programs(self, programs: Sequence[str]) -> PolicyDecision:
        """A program no list of the gate knows may run others (a launcher) or write
        files unseen: past a deny rule, only an allow rule naming it or a person."""
        names = ", ".join(programs[:5]) + (" …" if len(programs) > 5 else "")
        why = (
            f"runs programs agentls does not know ({names}), which may run others that "
            "deny rules name. While deny rules exist, only a person or an allow rule that "
            "names them approves them (--yes and bypass mode do not)"
        )
        if self.mode is Mode.BYPASS:
            return PolicyDecision(Verdict.DENY, why)
        return PolicyDecision(Verdict.ASK, why, person_only=True)

    def _control_writes(self, analysis: CommandAnalysis) -> list[str]:
        """What the line writes that may be a control file (a person must approve)."""
        # analysis.writes are workspace-relative already, symlinks resolved
        protected = [
            f"writes control file {p}" for p in analysis.writes if self._protected_relative(p)
        ]
        return protected + list(analysis.blind_writes)

    def _needs_person(self, writes: list[str]) -> PolicyDecision:
        why = "; ".join(writes) + " (control files need a person; --yes does not approve)"
        return PolicyDecision(Verdict.ASK, why, person_only=True, writes_control=True)

    def _protected_relative(self, relative: str) -> bool:
        """A workspace-relative real path: a control file, or agentls's own."""
        if self.rules.is_protected(relative):
            return True
        return self.root is not None and is_own_path(
            os.path.join(os.path.realpath(self.root), relative), own_paths()
        )

    def _protected(self, path: str) -> bool:
        if self.rules.is_protected(path):
            return True
        if self.root is None:
            return False
        relative = inside_workspace(path, self.root)  # through symlinks
        return relative is not None and self._protected_relative(relative)

    def _control_file(self, path: str) -> PolicyDecision:
        why = f"{path} is a control file: writing it needs a person (--yes does not approve)"
        return PolicyDecision(Verdict.ASK, why, person_only=True)

    def _covering(self, tool: str, commands: Sequence[SimpleCommand]) -> list[str] | None:
        """The allow rules that cover every command, or None when one is not covered."""
        found: list[str] = []
        for command in commands:
            if command.wrapper:
                continue
            rule = next((r for r in self._allow_rules() if r.matches_command(tool, command)), None)
            if rule is None:
                return None
            if str(rule) not in found:
                found.append(str(rule))
        return found or None

    def unallowed(self, tool: str, commands: Sequence[SimpleCommand]) -> list[SimpleCommand]:
        """The simple commands no allow rule covers (a wrapper is covered by its inner one)."""
        allow = self._allow_rules()
        return [
            c
            for c in commands
            if not c.wrapper and not any(rule.matches_command(tool, c) for rule in allow)
        ]

    def _allow_rules(self) -> list[Rule]:
        return [*self.rules.allow, *self.session_allow]

    def _ask(self, source: str, *, keep_asking: bool = False) -> PolicyDecision:
        if self.mode is Mode.BYPASS and not keep_asking:
            return PolicyDecision(Verdict.ALLOW, f"{source} (bypass mode)")
        return PolicyDecision(Verdict.ASK, source)

    def _by_mode(self, risk: Risk) -> PolicyDecision:
        mode = self.mode
        if risk is Risk.READ:
            return _READ
        if mode is Mode.PLAN:
            # an external tool is shown only when its server says read-only; still asked
            return _EXTERNAL if risk is Risk.EXTERNAL else _PLAN
        if mode is Mode.BYPASS:
            return _BYPASS
        if risk is Risk.WRITE:
            if mode is Mode.ACCEPT_EDITS:
                return _ACCEPT_EDITS
            return _REVIEWED if self.edits_reviewed_by_workspace else _EDIT
        return _EXTERNAL if risk is Risk.EXTERNAL else _COMMAND

    def remember(self, rules: Sequence[Rule]) -> None:
        for rule in rules:
            if rule not in self.session_allow:
                self.session_allow.append(rule)

    def forbid(self, rules: Sequence[Rule]) -> None:
        """Deny ``rules`` for the rest of the session, whatever the settings say later."""
        new = [r for r in dict.fromkeys(rules) if r not in self.session_deny]
        if new:
            self.session_deny.extend(new)
            # A new rule set, not an append: the one in force is the settings' own.
            self.rules = self.rules.merged(RuleSet(deny=new))

    def use_rules(self, rules: RuleSet) -> None:
        """The settings' rules from now on, under the session's own deny rules."""
        self.rules = rules.merged(RuleSet(deny=self.session_deny)) if self.session_deny else rules

    def take_answer(self, answer: ApprovalAnswer, rules: Sequence[Rule]) -> SessionRuleChange:
        """What a person's answer keeps for the rest of the session: "always allow" adds
        ``rules`` to the session's allow rules, "always deny" to its deny rules. ``rules``
        are the policy's suggestion, empty for a call no rule can cover: then an "always"
        counts once and adds nothing."""
        answer = answer.covering(rules)
        if answer.denies_always:
            new = [r for r in dict.fromkeys(rules) if r not in self.session_deny]
            self.forbid(new)
            return SessionRuleChange(deny=tuple(new))
        if answer.remembers:
            new = [r for r in dict.fromkeys(rules) if r not in self.session_allow]
            self.remember(new)
            return SessionRuleChange(allow=tuple(new))
        return SessionRuleChange()

    def needs_review(self, tool: str, path: str) -> bool:
        """Whether a person must see this edit before it is written, where the workspace
        reviews edits itself: asked without that allowance, whether a rule or the mode
        already allows it."""
        unreviewed = dataclasses.replace(self, edits_reviewed_by_workspace=False)
        return unreviewed.evaluate(tool, Risk.WRITE, "path", path).verdict is not Verdict.ALLOW

    def review_rules(self, tool: str, path: str) -> list[Rule] | None:
        """None when an edit of ``path`` by ``tool`` needs no person's review, else the
        rules an "always" answer to that review adds (none for a control file)."""
        if not self.needs_review(tool, path):
            return None
        return self.suggested_rules(tool, "path", path)

    def suggested_rules(
        self, tool: str, kind: SubjectKind, subject: str, risk: Risk | None = None
    ) -> list[Rule]:
        """The narrowest rules covering this call: what "always allow" adds.

        Nothing for a call no rule could ever approve (an unresolved command, a
        control file, a memory) or one that asks whatever the rules say: "always"
        would otherwise add a rule broader than what the person saw.
        """
        if risk is Risk.MEMORY:
            return []  # each memory is kept at its own yes
        if kind == "command":
            analysis = analyse(subject, self.root)
            missing = self.unallowed(tool, analysis.commands)
            if not analysis.resolved or any(c.known is not None for c in missing):
                return []  # words computed at run time: no rule names exactly this
            if self._control_writes(analysis):
                return []  # it writes control files: a rule would never approve this line
            return [command_rule(tool, c) for c in missing]
        if kind == "path" and subject:
            if self._protected(subject):
                return []
            return [Rule(tool, _keep_edges(escape_path(normalise_path(subject))))]
        return [Rule(tool, None)]


def command_rule(tool: str, command: SimpleCommand) -> Rule:
    """The rule naming exactly this command; words bash computes become a trailing *."""
    known = command.words if command.known is None else command.words[: command.known]
    pattern = shlex.join(escape_text(w) for w in known)
    if command.known is not None:
        pattern += " *"
    return Rule(tool, pattern)


def _keep_edges(pattern: str) -> str:
    """Escape whitespace at either end, which reading a rule back would strip."""
    head = len(pattern) - len(pattern.lstrip())
    tail = len(pattern.rstrip())
    body = pattern[head:tail]
    return (
        "".join("\\" + c for c in pattern[:head]) + body + "".join("\\" + c for c in pattern[tail:])
    )
