"""Asking an OpenAI-compatible server how much context its model has.

Each server says it its own way (``../shared`` notes): vLLM's ``/v1/models``
gives ``max_model_len``; llama.cpp's ``/props`` the context per slot
(``default_generation_settings.n_ctx``), its ``/v1/models`` the trained one;
LM Studio's ``/api/v0/models`` the loaded and the largest context; Ollama's
``/api/ps`` the context it loaded, ``/api/show`` the model's ``num_ctx``
parameter or its trained ``<arch>.context_length``. What the server runs with
is preferred to what the model was trained for. Every request is short and
bounded; a server that says nothing leaves the answer None.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from agentls.contracts.window import ServerWindow

REQUEST_SECONDS = 2.0
_MAX_BYTES = 4 * 1024 * 1024  # a model list is small; more is not an answer


Fetch = Callable[[str, dict[str, Any] | None], Any]


def fetch_json(url: str, body: dict[str, Any] | None = None) -> Any:
    """GET (or POST ``body``) ``url``; its JSON, or None for any failure."""
    import urllib.request  # here: only a session that asks pays for its imports

    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method="POST" if data else "GET")
    request.add_header("accept", "application/json")
    if data is not None:
        request.add_header("content-type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=REQUEST_SECONDS) as response:
            return json.loads(response.read(_MAX_BYTES))
    except (OSError, ValueError):  # URLError is an OSError
        return None


def server_root(base_url: str) -> str:
    """The server's own root: the base URL less a trailing ``/v1``."""
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def is_hosted_openai(base_url: str | None) -> bool:
    return base_url is None or (urlsplit(base_url).hostname or "").endswith("openai.com")


def ask_server(base_url: str, model: str, fetch: Fetch = fetch_json) -> ServerWindow | None:
    """The window the server at ``base_url`` (ending in /v1, as the SDK takes it) gives
    ``model``, or None when it does not say."""
    base = base_url.rstrip("/")
    root = server_root(base)
    entry = _entry(fetch(f"{base}/models", None), model)
    if entry is not None:
        if _positive(entry.get("max_model_len")):
            return ServerWindow(int(entry["max_model_len"]), f"vLLM /v1/models at {base_url}")
        meta = entry.get("meta")
        if isinstance(meta, dict) and _positive(meta.get("n_ctx_train")):
            # llama.cpp: the context it runs with is in /props; the trained one is a fallback.
            runtime = _llama_props(fetch(f"{root}/props", None))
            if runtime is not None:
                return ServerWindow(runtime, f"llama.cpp /props at {base_url}")
            return ServerWindow(int(meta["n_ctx_train"]), f"llama.cpp /v1/models at {base_url}")
    runtime = _llama_props(fetch(f"{root}/props", None))
    if runtime is not None:
        return ServerWindow(runtime, f"llama.cpp /props at {base_url}")
    studio = _entry(fetch(f"{root}/api/v0/models", None), model)
    if studio is not None:
        for key in ("loaded_context_length", "max_context_length"):
            if _positive(studio.get(key)):
                return ServerWindow(int(studio[key]), f"LM Studio /api/v0/models at {base_url}")
    return _ollama(root, base_url, model, fetch)


def _ollama(root: str, base_url: str, model: str, fetch: Fetch) -> ServerWindow | None:
    loaded = fetch(f"{root}/api/ps", None)
    if isinstance(loaded, dict):
        for running in loaded.get("models") or []:
            if (
                isinstance(running, dict)
                and model in (running.get("name"), running.get("model"))
                and _positive(running.get("context_length"))
            ):
                return ServerWindow(int(running["context_length"]), f"Ollama /api/ps at {base_url}")
    shown = fetch(f"{root}/api/show", {"model": model})
    if not isinstance(shown, dict):
        return None
    for line in str(shown.get("parameters") or "").splitlines():
        name, _, amount = line.strip().partition(" ")
        if name == "num_ctx" and amount.strip().isdigit() and int(amount) > 0:
            return ServerWindow(int(amount), f"Ollama /api/show (num_ctx) at {base_url}")
    info = shown.get("model_info")
    if isinstance(info, dict):
        for key, amount in info.items():
            if str(key).endswith(".context_length") and _positive(amount):
                return ServerWindow(int(amount), f"Ollama /api/show at {base_url}")
    return None


def _entry(listing: Any, model: str) -> dict[str, Any] | None:
    """The listing's entry for ``model``, or its only entry (a server that serves one)."""
    if not isinstance(listing, dict) or not isinstance(listing.get("data"), list):
        return None
    entries = [e for e in listing["data"] if isinstance(e, dict)]
    for entry in entries:
        if entry.get("id") == model:
            return entry
    return entries[0] if len(entries) == 1 else None


def _llama_props(props: Any) -> int | None:
    if not isinstance(props, dict):
        return None
    settings = props.get("default_generation_settings")
    n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
    return n_ctx if isinstance(n_ctx, int) and _positive(n_ctx) else None


def _positive(amount: Any) -> bool:
    return isinstance(amount, int) and not isinstance(amount, bool) and amount > 0
