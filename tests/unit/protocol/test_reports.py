"""The doctor's report, as `agentls doctor --json` builds it, passes through its model
unchanged: every key it can hold is in the schema, none is added or dropped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentls.conversation.doctor import build_report
from agentls.conversation.settings import load_settings
from agentls.protocol.reports import DoctorReport


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL",
                 "OPENAI_API_KEY", "OPENAI_BASE_URL"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def passes_unchanged(report: dict[str, Any]) -> dict[str, Any]:
    assert DoctorReport.model_validate(report).wire() == report
    return report


@pytest.mark.parametrize("model", ["anthropic:claude-sonnet-4-5", "openai:qwen", "scripted:demo"])
def test_each_provider_s_report(tmp_path: Path, model: str) -> None:
    settings = load_settings({"model": model})
    report = passes_unchanged(build_report(tmp_path, tmp_path / "state", settings))
    assert ("baseUrl" in report["model"]) is (not model.startswith("scripted:"))


def test_a_broken_settings_file_and_an_unapproved_workspace_file(tmp_path: Path) -> None:
    user = tmp_path / "config" / "agentls" / "settings.json"
    user.parent.mkdir(parents=True)
    user.write_text("{not json", "utf-8")
    (tmp_path / "work" / ".agentls").mkdir(parents=True)
    (tmp_path / "work" / ".agentls" / "settings.json").write_text(json.dumps({"mode": "plan"}))
    report = passes_unchanged(build_report(tmp_path / "work", tmp_path / "state"))
    files = report["settings"]
    assert "error" in files["user"] and files["workspace"]["trusted"] is False


def test_no_workspace_folder(tmp_path: Path) -> None:
    report = passes_unchanged(build_report(None, tmp_path / "state"))
    assert report["workspace"] is None and "workspace" not in report["settings"]
