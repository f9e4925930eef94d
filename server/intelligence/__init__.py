"""Language intelligence: agentls's own client of real language servers (pygls).

`discover_language_servers()` lists the servers agentls would use here,
`describe_language_servers()` every known one with why it would not run and how to
install it, and `missing_here()` the files of a workspace none would check (for
`agentls doctor`).
"""

from agentls.intelligence.config import (
    ServerChoice,
    ServerStatus,
    describe_language_servers,
    discover_language_servers,
    missing_here,
)

__all__ = [
    "ServerChoice",
    "ServerStatus",
    "describe_language_servers",
    "discover_language_servers",
    "missing_here",
]
