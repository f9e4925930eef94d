"""The editor clients as their package managers install them: Neovim from a lazy.nvim- or
packer-style folder with `:checkhealth agentls`, Emacs as a package (headers, autoloads,
byte-compiled without a warning, package-lint)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.install.conftest import ROOT, clean_env

KEY = "sk-ant-not-to-be-shown-77"
NVIM = shutil.which("nvim")
EMACS = shutil.which("emacs")
PACKAGE_LINT = Path("/usr/share/emacs/site-lisp/elpa-src").glob("package-lint-*")


def plugin_dir(data: Path, layout: str) -> Path:
    """Where the plugin manager puts the plugin, and the folder it adds to 'runtimepath'."""
    if layout == "lazy":  # { dir = ".../editors/neovim" } or a copy under lazy/
        target = data / "nvim" / "lazy" / "agentls"
    else:  # packer: the repository cloned whole, rtp = "editors/neovim"
        target = (
            data / "nvim" / "site" / "pack" / "packer" / "start" / "agentls" / "editors" / "neovim"
        )
    shutil.copytree(ROOT / "editors" / "neovim", target)
    return target


def checkhealth(tmp_path: Path, layout: str, **env_more: str) -> str:
    home, data = tmp_path / "home", tmp_path / "data"
    home.mkdir()
    rtp = plugin_dir(data, layout)
    init = tmp_path / "init.lua"
    init.write_text(f"vim.opt.runtimepath:append({str(rtp)!r})\nrequire('agentls').setup({{}})\n")
    out = tmp_path / "health.txt"
    # agentls itself from this checkout's environment, as an installed one would be on PATH.
    env = clean_env(home, Path(sys.executable).parent) | {
        "XDG_DATA_HOME": str(data), "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "XDG_STATE_HOME": str(tmp_path / "state"), **env_more,
    }  # fmt: skip
    done = subprocess.run(
        [NVIM or "nvim", "--headless", "-u", str(init), "+checkhealth agentls",
         f"+w! {out}", "+qa!"],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out.read_text()


@pytest.mark.skipif(NVIM is None, reason="neovim is not installed")
@pytest.mark.parametrize("layout", ["lazy", "packer"])
def test_neovim_checkhealth_passes_from_a_plugin_manager_folder(
    tmp_path: Path, layout: str
) -> None:
    report = checkhealth(tmp_path, layout, ANTHROPIC_API_KEY=KEY)
    assert "- OK: plugin version 0.1.0" in report
    assert "- OK: server 0.1.0 (" in report
    assert "- OK: model anthropic:claude-sonnet-4-5: ANTHROPIC_API_KEY is set" in report
    assert "- OK: ready to ask" in report
    assert "ERROR" not in report and KEY not in report
    # Each language server the doctor knows: used, or why not and how to install it.
    gopls = "- INFO: language server gopls not used: gopls was not found on PATH; install it: "
    assert gopls in report


@pytest.mark.skipif(NVIM is None, reason="neovim is not installed")
def test_neovim_checkhealth_lists_the_hooks_and_runs_none(tmp_path: Path) -> None:
    marker = tmp_path / "hook-ran"
    settings = tmp_path / "config" / "agentls" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"disableAllHooks": True, "hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": f"touch {marker}"}]},
    ]}}))  # fmt: skip
    report = checkhealth(tmp_path, "lazy", ANTHROPIC_API_KEY=KEY)
    line = f"- INFO: hook PreToolUse: touch {marker} (matcher Bash; user settings) not run: "
    assert line + "disableAllHooks is set\n" in report
    assert "- INFO: hooks: disableAllHooks, only the managed settings' hooks run" in report
    assert not marker.exists()


@pytest.mark.skipif(NVIM is None, reason="neovim is not installed")
def test_neovim_checkhealth_reports_a_missing_key_as_an_error(tmp_path: Path) -> None:
    report = checkhealth(tmp_path, "lazy")
    # said once, with what to do
    errors = [line.strip() for line in report.splitlines() if "ERROR" in line]
    needs = "- ERROR: anthropic:claude-sonnet-4-5 needs an API key: set ANTHROPIC_API_KEY"
    assert errors == [needs]
    assert "- INFO: model anthropic:claude-sonnet-4-5\n" in report
    assert "then :AgentRestart" in report
    assert "ready to ask" not in report


def emacs(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([EMACS or "emacs", "--batch", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120)  # fmt: skip


@pytest.mark.skipif(EMACS is None, reason="emacs is not installed")
def test_emacs_package_compiles_cleanly_and_autoloads(tmp_path: Path) -> None:
    package = tmp_path / "agentls"
    shutil.copytree(ROOT / "editors" / "emacs", package,
                    ignore=lambda _d, names: [n for n in names if n != "agentls.el"
                                              and n != "agentls-doctor.el"])  # fmt: skip
    compiled = emacs("-L", ".", "--eval", "(setq byte-compile-error-on-warn t)",
                     "-f", "batch-byte-compile", "agentls.el", "agentls-doctor.el",
                     cwd=package)  # fmt: skip
    assert compiled.returncode == 0, compiled.stderr
    assert (package / "agentls.elc").exists() and (package / "agentls-doctor.elc").exists()
    # What package.el (and package-vc) read from the headers, and the autoloads it makes.
    described = emacs("--eval", """(progn (require 'package)
      (let ((info (with-temp-buffer (insert-file-contents "agentls.el") (package-buffer-info))))
        (princ (format "%s %s %S\\n" (package-desc-name info)
                       (package-version-join (package-desc-version info))
                       (package-desc-reqs info)))
        (package-generate-autoloads "agentls" default-directory)))""", cwd=package)  # fmt: skip
    assert described.returncode == 0, described.stderr
    assert described.stdout.strip() == "agentls 0.1.0 ((emacs (28 1)) (eglot (1 9)))"
    loaded = emacs("-L", ".", "-l", "agentls-autoloads.el", "--eval", """(progn
      (dolist (f '(agentls-ask agentls-new agentls-cancel agentls-doctor agentls-eglot-setup))
        (unless (autoloadp (symbol-function f)) (error "%s is not autoloaded" f)))
      (when (featurep 'agentls) (error "agentls loaded too early"))
      (require 'agentls-doctor)
      (princ (format "%S" (list (featurep 'agentls) (commandp 'agentls-doctor)))))""",
                   cwd=package)  # fmt: skip
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip() == "(t t)"


@pytest.mark.skipif(EMACS is None or not list(PACKAGE_LINT),
                    reason="emacs or Debian's elpa-package-lint is not installed")  # fmt: skip
def test_emacs_package_lint_is_clean(tmp_path: Path) -> None:
    shutil.copy(ROOT / "editors" / "emacs" / "agentls.el", tmp_path)
    shutil.copy(ROOT / "editors" / "emacs" / "agentls-doctor.el", tmp_path)
    # Offline there is no archive: eglot 1.9 (GNU ELPA's, Debian's) stands in for it.
    # package-lint 0.16 (Debian 12) predates Emacs 28 and calls any (emacs "28.1")
    # uninstallable; that one finding is dropped, every other one fails the test.
    linted = emacs("--eval", """(progn (require 'package-lint) (package-initialize)
      (setq package-archive-contents
            (list (list 'eglot (package-desc-create :name 'eglot :version '(1 9) :archive "gnu"))))
      (setq package-lint-main-file "agentls.el")
      (dolist (file '("agentls.el" "agentls-doctor.el"))
        (with-current-buffer (find-file-noselect file)
          (dolist (found (package-lint-buffer))
            (princ (format "%s:%d: %s: %s\n"
                           file (nth 0 found) (nth 2 found) (nth 3 found)))))))""",
                   cwd=tmp_path)  # fmt: skip
    assert linted.returncode == 0, linted.stderr
    stale = "This makes the package uninstallable in all released Emacs versions."
    findings = [line for line in linted.stdout.splitlines() if not line.endswith(stale)]
    assert findings == [], linted.stdout
