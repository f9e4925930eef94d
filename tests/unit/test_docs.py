"""The README and the pages it leads to: every link goes somewhere, every command the
README shows exists, and the README stays a first day's reading."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(
    {
        ROOT / "README.md",
        ROOT / "ARCHITECTURE.md",
        ROOT / "vscode-client" / "README.md",
        *(ROOT / "docs").glob("*.md"),
        *(ROOT / "editors").glob("**/README.md"),
    }
)
_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it."""
    text = heading.strip().lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = _FENCE.sub("", page.read_text("utf-8"))
    return {_slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", text, re.M)}


def _links(page: Path) -> list[str]:
    return _LINK.findall(_FENCE.sub("", page.read_text("utf-8")))


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_every_link_leads_somewhere(page: Path) -> None:
    broken = []
    for target in _links(page):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        goal = page if not path else (page.parent / path).resolve()
        if not goal.exists() or (anchor and goal.suffix == ".md" and anchor not in _anchors(goal)):
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: {broken}"


def _shown_commands() -> list[list[str]]:
    text = (ROOT / "README.md").read_text("utf-8")
    shown = []
    for block in re.findall(r"^```bash\n(.*?)^```", text, re.S | re.M):
        for line in block.splitlines():
            words = line.split("#", 1)[0].split()
            if words[:1] in (["agentls"], ["make"]):
                shown.append(words)
    return shown


def test_the_readme_shows_commands() -> None:
    assert len(_shown_commands()) >= 6


@pytest.mark.parametrize("words", _shown_commands(), ids=lambda w: " ".join(w[:2]))
def test_every_command_the_readme_shows_exists(words: list[str]) -> None:
    if words[0] == "make":
        makefile = (ROOT / "Makefile").read_text("utf-8")
        target = next(w for w in words[1:] if "=" not in w)
        assert re.search(rf"^{re.escape(target)}:", makefile, re.M), target
        return
    subcommand = words[1]
    shown = subprocess.run(
        [sys.executable, "-m", "agentls", subcommand, "--help"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert shown.returncode == 0, f"agentls {subcommand}: {shown.stderr}"
    for flag in (w.split("=")[0] for w in words[2:] if w.startswith("--")):
        assert flag in shown.stdout, f"agentls {subcommand} has no {flag}"


def test_the_readme_is_a_first_days_reading() -> None:
    assert len((ROOT / "README.md").read_text("utf-8").splitlines()) <= 400


def test_the_vscode_readme_links_nothing_outside_its_folder() -> None:
    """It is packed into the .vsix alone (vsce refuses a relative link out of the folder):
    the server's pages are named, not linked."""
    page = ROOT / "vscode-client" / "README.md"
    outside = [link for link in _links(page) if link.startswith("../")]
    assert outside == []
