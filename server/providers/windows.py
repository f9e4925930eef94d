"""The context window a provider's server gives its model: asked once, then remembered.

Answers (and a server's silence) are kept per base URL and model in the state
folder (``context-windows.json``, the person's alone) for a day, keyed by a hash of
the base URL (which may hold a password), never the URL itself, so a session opens without asking
again, and a server restarted with another context is asked again the next day.
Only servers that can say are asked: an OpenAI-compatible one at a base URL that
is not OpenAI's own. Called where sessions open (on a thread in the language
server), never on an event loop.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentls.contracts.window import ServerWindow
from agentls.providers.window_probe import Fetch, ask_server, fetch_json, is_hosted_openai

MEMORY_FILE = "context-windows.json"
KEEP_SECONDS = 24 * 3600


def server_key(base_url: str) -> str:
    """The base URL as the memory names it: a digest, since the URL may hold a password."""
    return "sha256:" + hashlib.sha256(base_url.encode("utf-8")).hexdigest()


class WindowMemory:
    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / MEMORY_FILE

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def recall(self, base_url: str, model: str) -> tuple[bool, ServerWindow | None]:
        """(known, window): known is False when the server was not asked within a day."""
        servers = self._read().get(server_key(base_url), {})
        entry = servers.get(model) if isinstance(servers, dict) else None
        if not isinstance(entry, dict) or not isinstance(entry.get("at"), int | float):
            return False, None
        if time.time() - entry["at"] > KEEP_SECONDS:
            return False, None
        tokens, source = entry.get("tokens"), entry.get("source")
        if not isinstance(tokens, int) or tokens <= 0 or not isinstance(source, str):
            return True, None  # asked, and the server did not say
        day = datetime.fromtimestamp(entry["at"], UTC).date().isoformat()
        return True, ServerWindow(tokens, source, remembered=day)

    def remember(self, base_url: str, model: str, window: ServerWindow | None) -> None:
        data = self._read()
        entry: dict[str, Any] = {"at": round(time.time())}
        if window is not None:
            entry |= {"tokens": window.tokens, "source": window.source}
        servers = data.setdefault(server_key(base_url), {})
        if isinstance(servers, dict):
            servers[model] = entry
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            partial = self.path.with_name(f".{MEMORY_FILE}.{os.getpid()}")
            text = json.dumps(data, indent=1, sort_keys=True).encode("utf-8")
            descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(descriptor, "wb") as out:
                out.write(text)
            os.replace(partial, self.path)  # whole or not at all, for a reader beside us
        except OSError:
            return  # not remembered: the next session asks again


def learn_window(
    base_url: str | None, model: str, state_dir: Path | None, fetch: Fetch = fetch_json
) -> ServerWindow | None:
    """What the server at ``base_url`` says of ``model``'s window (remembered, or asked
    now); None for OpenAI's own API (it does not say) or a server that does not say."""
    if base_url is None or is_hosted_openai(base_url):
        return None
    memory = WindowMemory(state_dir) if state_dir is not None else None
    if memory is not None:
        known, window = memory.recall(base_url, model)
        if known:
            return window
    window = ask_server(base_url, model, fetch)
    if memory is not None:
        memory.remember(base_url, model, window)
    return window
