"""What an SDK's first request would import, imported ahead of it.

The HTTP transport, its TLS trust store and tracing propagators load on the first
request, 40-60 ms of imports. The faces build providers on a thread (`warm_up`),
so an editor's requests never wait for them on the event loop.
"""

from __future__ import annotations

import importlib

# Named as the SDKs' transport loads them; one a newer SDK no longer uses is skipped.
FIRST_REQUEST_MODULES = (
    "httpcore2",
    "h11",
    "anyio._backends._asyncio",
    "anyio.streams.tls",
    "truststore",
    "opentelemetry.propagate",
    "jiter",  # streamed JSON, parsed as it comes
)


def import_transport() -> None:
    for name in FIRST_REQUEST_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            continue  # the first request loads what it does use
