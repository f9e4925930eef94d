"""`agentls.doctor`: the same report as `agentls doctor --json`, for the editors to show.

The report is for the workspace folder of ``uri`` (else the first folder) under
the settings this server uses there, the editor's own included.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from agentls.contracts.errors import ConfigError
from agentls.lsp.commands.arguments import no_argument, parse
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints

if TYPE_CHECKING:
    from agentls.conversation.settings import Settings

DOCTOR = "agentls.doctor"


def register(server: AgentServer) -> None:
    @server.command(DOCTOR)
    async def doctor(ls: AgentServer, *args: Any) -> dict[str, Any]:
        from agentls.conversation.doctor import build_report  # the core: on first use
        from agentls.protocol.commands import DoctorParams
        from agentls.protocol.reports import DoctorReport

        params = DoctorParams() if no_argument(args) else parse(DoctorParams, args, DOCTOR)
        await ls.wait_for_settings()
        roots = await ls.roots_async()
        root = (
            await ls.root_for_async(params.uri)
            if params.uri and roots
            else (roots[0] if roots else None)
        )
        settings: Settings | None = None
        if root is not None:
            try:
                settings = await ls.settings_for_async(root)
            except ConfigError:
                settings = None  # the report names the file that does not load
        # Version probes run programs: off the event loop, so the editor stays served.
        state_dir = ls.store.state_dir
        report = await asyncio.to_thread(build_report, root, state_dir, settings)
        return DoctorReport.model_validate(report).wire()
