"""pyproject lists every package, and a built wheel imports like the editable install."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_directory_is_listed() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    folders = [ROOT / "server", *(p for p in (ROOT / "server").rglob("*") if p.is_dir())]
    on_disk = {"agentls.tools"} | {
        "agentls" + "".join(f".{part}" for part in folder.relative_to(ROOT / "server").parts)
        for folder in folders
        if folder.name != "__pycache__"
    }
    assert listed == on_disk


def test_wheel_contains_server_tools_and_data(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path), str(ROOT)],
        check=True,
    )  # fmt: skip
    (wheel,) = tmp_path.glob("agentls-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for expected in (
        "agentls/__init__.py",
        "agentls/loop/query_loop.py",
        "agentls/tools/__init__.py",
        "agentls/tools/read_file.py",
        "agentls/data/models.json",
        "agentls/data/demo/script.json",
        "agentls/data/demo/workspace/greet.py",
    ):
        assert expected in names, expected
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
         str(wheel)],
        check=True,
    )  # fmt: skip
    probe = (
        "import agentls, agentls.tools, agentls.pricing; "
        f"print(agentls.__file__.startswith({str(target)!r}), len(agentls.tools.BUILTIN_TOOLS), "
        "agentls.pricing.price_for('scripted:x') is not None)"
    )
    out = subprocess.run(
        [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(target)!r}); {probe}"],
        check=True, capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert out.stdout.split() == ["True", "16", "True"]
