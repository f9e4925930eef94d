"""The reliability suite: fixtures, and the figures each test reports.

A test hands its measured figures to ``figures(...)``: they go into the test's
report (``user_properties``, so a JUnit XML report carries them) and are
printed in the terminal summary at the end of the run, even with ``-q``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Cli

FIGURES_KEY = "reliability"

Figures = Callable[[str], None]


@pytest.fixture
def figures(request: pytest.FixtureRequest) -> Figures:
    """``figures("line")``: printed now (-s shows it) and in the run's summary."""

    def record(line: str) -> None:
        print(line)
        request.node.user_properties.append((FIGURES_KEY, line))

    return record


def pytest_terminal_summary(terminalreporter: Any) -> None:
    lines = []
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) != "call":
                continue
            for key, value in getattr(report, "user_properties", []):
                if key == FIGURES_KEY:
                    lines.append(f"{report.nodeid.split('::')[-1]}: {value}")
    if lines:
        terminalreporter.write_sep("-", "reliability figures")
        for line in lines:
            terminalreporter.write_line(line)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "project"
    ws.mkdir()
    return ws


@pytest.fixture
def cli(isolated_state: Path, workspace: Path) -> Cli:
    return Cli(isolated_state, workspace)
