"""What each kind of server says of its model's window, and how the answer is kept."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from agentls.contracts.window import ServerWindow
from agentls.providers.window_probe import ask_server
from agentls.providers.windows import MEMORY_FILE, WindowMemory, learn_window, server_key

BASE = "http://127.0.0.1:8080/v1"


def server(answers: dict[str, Any], asked: list[str] | None = None) -> Any:
    def fetch(url: str, body: dict[str, Any] | None) -> Any:
        path = url.removeprefix("http://127.0.0.1:8080")
        if asked is not None:
            asked.append(path)
        return answers.get(path)

    return fetch


@pytest.mark.parametrize(
    ("answers", "tokens", "source"),
    [
        ({"/v1/models": {"data": [{"id": "m", "max_model_len": 32_768}]}}, 32_768, "vLLM"),
        (
            {"/v1/models": {"data": [{"id": "m", "meta": {"n_ctx_train": 131_072}}]},
             "/props": {"default_generation_settings": {"n_ctx": 4096}}},
            4096, "llama.cpp /props",
        ),
        ({"/v1/models": {"data": [{"id": "m", "meta": {"n_ctx_train": 131_072}}]}},
         131_072, "llama.cpp /v1/models"),
        ({"/props": {"default_generation_settings": {"n_ctx": 2048}}}, 2048, "llama.cpp /props"),
        ({"/api/v0/models": {"data": [{"id": "m", "max_context_length": 65_536}]}},
         65_536, "LM Studio"),
        ({"/api/ps": {"models": [{"name": "m", "context_length": 8192}]},
          "/api/show": {"model_info": {"llama.context_length": 131_072}}}, 8192, "Ollama /api/ps"),
        ({"/api/show": {"parameters": "stop <|im_end|>\nnum_ctx 12288",
                        "model_info": {"qwen2.context_length": 32_768}}},
         12_288, "Ollama /api/show (num_ctx)"),
        ({"/api/show": {"model_info": {"qwen2.context_length": 32_768}}},
         32_768, "Ollama /api/show"),
    ],
)  # fmt: skip
def test_each_server_says_it_its_own_way(answers: dict[str, Any], tokens: int, source: str) -> None:
    window = ask_server(BASE, "m", server(answers))
    assert window is not None and window.tokens == tokens
    assert window.source == f"{source} at {BASE}" or window.source.startswith(source)


def test_a_server_that_does_not_say_gives_none() -> None:
    silent = {"/v1/models": {"data": [{"id": "a"}, {"id": "b"}]}, "/props": {"n_ctx": "x"}}
    assert ask_server(BASE, "m", server(silent)) is None
    assert ask_server(BASE, "m", server({"/api/show": {"model_info": {"x": True}}})) is None


def test_the_answer_is_remembered_per_base_url_and_model(tmp_path: Path) -> None:
    asked: list[str] = []
    fetch = server({"/props": {"default_generation_settings": {"n_ctx": 4096}}}, asked)
    first = learn_window(BASE, "m", tmp_path, fetch)
    assert first == ServerWindow(4096, f"llama.cpp /props at {BASE}")
    count = len(asked)
    again = learn_window(BASE, "m", tmp_path, fetch)
    assert len(asked) == count  # read back, not asked
    assert again is not None and again.tokens == 4096 and again.remembered is not None
    assert learn_window("http://127.0.0.1:9999/v1", "m", tmp_path, server({})) is None
    stored = json.loads((tmp_path / MEMORY_FILE).read_text())
    assert set(stored) == {server_key(BASE), server_key("http://127.0.0.1:9999/v1")}


def test_silence_is_remembered_too_and_answers_age_out(tmp_path: Path) -> None:
    memory = WindowMemory(tmp_path)
    memory.remember(BASE, "m", None)
    assert memory.recall(BASE, "m") == (True, None)
    data = json.loads((tmp_path / MEMORY_FILE).read_text())
    data[server_key(BASE)]["m"]["at"] = time.time() - 2 * 24 * 3600
    (tmp_path / MEMORY_FILE).write_text(json.dumps(data))
    assert memory.recall(BASE, "m") == (False, None)  # a day old: ask again


def test_openais_own_api_and_a_broken_memory_file(tmp_path: Path) -> None:
    asked: list[str] = []
    assert learn_window(None, "gpt-5-codex", tmp_path, server({}, asked)) is None
    assert (
        learn_window("https://api.openai.com/v1", "gpt-5-codex", tmp_path, server({}, asked))
        is None
    )
    assert asked == []
    (tmp_path / MEMORY_FILE).write_text("{not json")
    assert WindowMemory(tmp_path).recall(BASE, "m") == (False, None)


def test_a_password_in_the_base_url_is_never_stored(tmp_path: Path) -> None:
    secret_url = "http://person:hunter2@127.0.0.1:9/v1"
    memory = WindowMemory(tmp_path)
    memory.remember(secret_url, "m", None)
    stored = tmp_path / MEMORY_FILE
    assert "hunter2" not in stored.read_text() and "person" not in stored.read_text()
    assert stored.stat().st_mode & 0o777 == 0o600
    assert memory.recall(secret_url, "m") == (True, None)
