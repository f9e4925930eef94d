"""agentls for Sublime Text: "agentls: Ask…" with a prompt typed in the command palette.

Put this file, Default.sublime-commands and Default.sublime-keymap in
Packages/User/ (Preferences > Browse Packages…). It runs the LSP package's
lsp_execute with agentls.ask, the open file and the selection attached.
"""

from __future__ import annotations

from pathlib import Path

import sublime
import sublime_plugin

SESSION_NAME = "agentls"  # the key in LanguageServers.sublime-settings


class AgentlsPromptInputHandler(sublime_plugin.TextInputHandler):
    def name(self) -> str:
        return "prompt"

    def placeholder(self) -> str:
        return "Ask agentls"


class AgentlsAskCommand(sublime_plugin.TextCommand):
    last_session: str | None = None

    def input(self, args: dict) -> sublime_plugin.TextInputHandler | None:
        return None if args.get("prompt") else AgentlsPromptInputHandler()

    def run(self, edit: sublime.Edit, prompt: str = "", new_session: bool = False) -> None:
        argument: dict = {"prompt": prompt}
        if AgentlsAskCommand.last_session and not new_session:
            argument["sessionId"] = AgentlsAskCommand.last_session
        path = self.view.file_name()
        if path:
            argument["uri"] = Path(path).as_uri()
            region = self.view.sel()[0] if len(self.view.sel()) else None
            if region is not None and not region.empty():
                first = self.view.rowcol(region.begin())[0]
                last = self.view.rowcol(region.end())[0]
                argument["range"] = {
                    "start": {"line": first, "character": 0},
                    "end": {"line": last, "character": 0},
                }
        execute = {"session_name": SESSION_NAME, "command_name": "agentls.ask"}
        self.view.run_command("lsp_execute", {**execute, "command_args": [argument]})
