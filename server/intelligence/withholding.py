"""Language answers screened for secret files, before a tool or the log sees them.

`read_file` may read a secret file (`SecretFiles`: by name under the session's
`secretFiles`, or a symbolic or hard link to one) only after the gate asked, and
`search` never shows one; a language server knows them all the same. So every
answer leaves out what comes from a secret file the call did not name itself
(the gate asked about that one): a location or symbol in one (its line is never
read), a problem in one, and a problem elsewhere whose message quotes one (a
literal type inferred from it: `secret_text`). The answer's `Withheld` counts
them, by secret file, for the tool to say why.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Collection, Iterable, Sequence

from agentls.contracts.tooling import ToolError
from agentls.intelligence.secret_text import SecretTexts, flat, pieces
from agentls.workspace.interface import Workspace
from agentls.workspace.language import (
    NOTHING_WITHHELD,
    CodeSymbol,
    Problem,
    ProblemReport,
    Symbols,
    Withheld,
)
from agentls.workspace.paths import SecretFiles


class Tally:
    """What one answer leaves out, by the secret file it came from."""

    def __init__(self, before: Withheld = NOTHING_WITHHELD) -> None:
        self.count = before.count
        self.files = set(before.files)

    def add(self, *secret_files: str) -> None:
        """One item left out, which came from these secret files."""
        self.count += 1
        self.files.update(secret_files)

    def withheld(self) -> Withheld:
        return Withheld(self.count, tuple(sorted(self.files))) if self.count else NOTHING_WITHHELD


class SecretScreen:
    """One session's screen: the Workspace's secret files, as its `secrets` say now."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self._texts: SecretTexts | None = None

    async def secret_files(self, rels: Iterable[str], asked: Collection[str]) -> dict[str, str]:
        """Each workspace path of ``rels`` that is a secret file, or leads to one, the call
        did not name (``asked``, as `Workspace.relative` gave them), with that secret file."""
        wanted = sorted({rel for rel in rels if not os.path.isabs(rel)})
        if not wanted:
            return {}
        return await asyncio.to_thread(_secret_of_each, self.workspace.secrets, wanted, asked)

    async def symbols(self, found: Sequence[CodeSymbol], asked: Collection[str]) -> Symbols:
        hidden = await self.secret_files((s.path for s in found), asked)
        tally = Tally()
        shown = []
        for symbol in found:
            if symbol.path in hidden:
                tally.add(hidden[symbol.path])
            else:
                shown.append(symbol)
        return Symbols(shown, tally.withheld())

    async def report(self, report: ProblemReport, asked: Collection[str]) -> ProblemReport:
        problems, withheld = await self.problems(report.problems, asked, report.withheld)
        return ProblemReport(problems, report.unchecked, report.unsettled, withheld)

    async def problems(
        self,
        found: Sequence[Problem],
        asked: Collection[str],
        before: Withheld = NOTHING_WITHHELD,
    ) -> tuple[list[Problem], Withheld]:
        tally = Tally(before)
        hidden = await self.secret_files((p.path for p in found), asked)
        kept = []
        for problem in found:
            if problem.path in hidden:
                tally.add(hidden[problem.path])
            else:
                kept.append(problem)
        # What a message quotes of its own file is no secret: the model may read that file.
        own: dict[str, str] = {}
        foreign: list[set[str]] = []
        for problem in kept:
            if problem.path not in own:
                own[problem.path] = flat(await self._text(problem.path))
            foreign.append({p for p in pieces(problem.message) if p not in own[problem.path]})
        if not any(foreign):
            return kept, tally.withheld()  # nothing to look up: the disk is not even walked
        texts = await self._secret_texts()
        shown = []
        for problem, wanted in zip(kept, foreign, strict=True):
            sources = [
                f for f in texts.holding(wanted) if f not in asked and f != problem.path
            ] if wanted else []  # fmt: skip
            if sources:
                tally.add(*sources)
            else:
                shown.append(problem)
        return shown, tally.withheld()

    async def _secret_texts(self) -> SecretTexts:
        secrets = self.workspace.secrets
        texts = self._texts
        if texts is None or texts.secrets is not secrets:  # other patterns: other files
            texts = self._texts = SecretTexts(secrets)
        await asyncio.to_thread(texts.refresh)
        return texts

    async def _text(self, rel: str) -> str:
        try:
            snapshot = await self.workspace.read(rel)
        except ToolError:
            return ""  # nothing known of it: every quoted piece counts
        return snapshot.data.decode("utf-8", "replace")


def _secret_of_each(
    secrets: SecretFiles, rels: list[str], asked: Collection[str]
) -> dict[str, str]:
    found = {}
    for rel in rels:
        secret = rel if secrets.by_name(rel) else secrets.secret_behind(rel)
        if secret is not None and secret not in asked:
            found[rel] = secret
    return found
