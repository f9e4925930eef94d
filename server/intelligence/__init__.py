"""Language intelligence: agentls's own client of real language servers (pygls).

`discover_language_servers()` lists the servers agentls would use here and why
any is missing (for `agentls doctor`).
"""

from agentls.intelligence.config import ServerChoice, discover_language_servers

__all__ = ["ServerChoice", "discover_language_servers"]
