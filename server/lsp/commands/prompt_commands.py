"""`agentls.commands` {"uri"?}: the prompt commands an ask in that folder may name
(`/name args` in `agentls.ask`), with what was skipped; for the editors' lists and
completion."""

from __future__ import annotations

import asyncio
from typing import Any

from agentls.lsp.commands.arguments import no_argument, parse
from agentls.lsp.server import AgentServer  # at run time: pygls reads the hints

COMMANDS = "agentls.commands"


def register(server: AgentServer) -> None:
    @server.command(COMMANDS)
    async def commands(ls: AgentServer, *args: Any) -> dict[str, Any]:
        from agentls.conversation.command_files import command_listing
        from agentls.protocol.commands import CommandsParams
        from agentls.protocol.reports import CommandsInfo

        params = CommandsParams() if no_argument(args) else parse(CommandsParams, args, COMMANDS)
        root = await ls.root_for_async(params.uri)
        catalog = await asyncio.to_thread(ls.manager.prompt_commands, root)  # reads the files
        return CommandsInfo.model_validate(command_listing(catalog)).wire()
