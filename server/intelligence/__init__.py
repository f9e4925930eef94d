"""Language intelligence: agentls's own client of real language servers (pygls).

`discover_language_servers()` lists the servers agentls would use here and why
any is missing, and `missing_here()` the files of a workspace none would check
(for `agentls doctor`).
"""

from agentls.intelligence.config import ServerChoice, discover_language_servers, missing_here

__all__ = ["ServerChoice", "discover_language_servers", "missing_here"]
