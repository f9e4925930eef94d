"""The `agentls` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from agentls import __version__

# Each subcommand's module is imported only when that subcommand runs, so start-up
# costs the same however many there are.


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage errors exit 2, as documented
        from agentls.contracts.outcomes import EXIT_USAGE

        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"agentls: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="agentls", description="A coding agent that lives in a language server.")
    parser.add_argument("--version", action="version", version=f"agentls {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    serve = sub.add_parser("serve", help="the language server (stdio by default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    serve.add_argument("--stdio", action="store_true", help="stdio (the default; editors pass it)")

    acp = sub.add_parser("acp", help="an Agent Client Protocol agent on stdio (Zed, JetBrains, …)")
    acp.add_argument("--model", metavar="PROVIDER:NAME", help="e.g. anthropic:claude-sonnet-4-5")

    ask = sub.add_parser("ask", help="run the agent once, headless, on PROMPT")
    ask.add_argument("prompt", metavar="PROMPT")
    ask.add_argument(
        "--workspace",
        metavar="DIR",
        help="workspace root (default: the current folder, unless that is your home or /)",
    )
    ask.add_argument("--model", metavar="PROVIDER:NAME", help="e.g. anthropic:claude-sonnet-4-5")
    ask.add_argument("--mode", choices=["default", "accept-edits", "plan", "bypass"])
    ask.add_argument("--yes", action="store_true", help="approve prompts (deny rules still hold)")
    ask.add_argument("--max-turns", type=int, metavar="N")
    ask.add_argument("--max-tokens", type=int, metavar="N")
    ask.add_argument("--max-cost", type=float, metavar="USD")
    ask.add_argument("--timeout", type=float, metavar="S", help="wall-clock limit in seconds")
    ask.add_argument("--session", metavar="ID", help="continue an earlier session")
    ask.add_argument("--json", action="store_true", help="print one JSON result object")
    for kind in ("allow", "ask", "deny"):
        ask.add_argument(
            f"--{kind}",
            action="append",
            default=[],
            metavar="RULE",
            help=f"a permission rule to {kind}, e.g. 'run_command(pytest *)' (repeatable)",
        )

    undo = sub.add_parser(
        "undo",
        help="Undo last ask: put back every file the session's last "
        "ask changed, over all its turns",
    )
    undo.add_argument("session_id", metavar="SESSION_ID")
    undo.add_argument("--turn", type=int, metavar="N", help="undo only checkpointed turn N")

    replay = sub.add_parser(
        "replay",
        help="re-run a session's recorded model output and check the runtime decides the same",
    )
    replay.add_argument("session_id", metavar="SESSION_ID")

    mcp = sub.add_parser("mcp", help="MCP servers from the settings (mcpServers)")
    mcp_sub = mcp.add_subparsers(dest="mcp_command", required=True, parser_class=_Parser)
    mcp_list = mcp_sub.add_parser("list", help="start the MCP servers; show status and tools")
    mcp_list.add_argument("--workspace", metavar="DIR", default=".", help="workspace root")
    mcp_list.add_argument("--json", action="store_true", help="print one JSON array")

    doctor = sub.add_parser("doctor", help="what blocks or weakens the next ask (exit 2: blocked)")
    doctor.add_argument("--workspace", metavar="DIR", default=".", help="workspace root")
    doctor.add_argument("--model", metavar="PROVIDER:NAME", help="check this model instead")
    doctor.add_argument("--json", action="store_true", help="print one JSON object")

    trust = sub.add_parser("trust", help="approve the workspace's .agentls/settings.json")
    trust.add_argument("--workspace", metavar="DIR", default=".", help="workspace root")

    memory = sub.add_parser("memory", help="what the agent remembers across sessions")
    memory.add_argument("--workspace", metavar="DIR", default=".", help="workspace root")
    remembered = memory.add_subparsers(dest="memory_command", required=True)
    add = remembered.add_parser("add", help="remember TEXT (your rule, confidence high)")
    add.add_argument("text", metavar="TEXT")
    add.add_argument("--scope", choices=("user", "project"), default="project")
    add.add_argument("--expires", metavar="DAYS", type=float, help="forget it after DAYS")
    remembered.add_parser("list", help="the memories that apply here").add_argument(
        "--json", action="store_true", help="print a JSON list"
    )
    remembered.add_parser("forget", help="drop one memory").add_argument("id", metavar="ID")

    sessions = sub.add_parser("sessions", help="list stored sessions")
    sessions.add_argument("--workspace", metavar="DIR", help="only this workspace's sessions")
    sessions.add_argument("--all", action="store_true", help="sessions of every workspace")

    show = sub.add_parser("show", help="print a session's transcript from its log")
    show.add_argument("session_id", metavar="SESSION_ID")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    if given == ["--version"]:
        print(f"agentls {__version__}")  # before anything else loads
        return 0
    if given[:1] == ["ask"]:  # served by the warm process unless AGENTLS_WARM=0
        from agentls.cli.warm import ask_warm, wanted

        served = ask_warm(given) if wanted(given) else None
        if served is not None:  # else this process runs the ask itself
            return served
    _log_to_stderr()
    if given in (["serve"], ["serve", "--stdio"]):  # how editors start it: no parser to build
        from agentls.lsp.main import serve

        return serve(None)
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "serve":
        if args.tcp is not None and not _valid_hostport(args.tcp):
            parser.error(f"--tcp wants HOST:PORT, e.g. 127.0.0.1:2087, not {args.tcp!r}")
        from agentls.lsp.main import serve

        return serve(args.tcp)
    if args.command == "acp":
        from agentls.acp.main import run_acp

        return run_acp(args.model)
    if args.command == "ask":
        from agentls.cli.ask import run_ask

        return run_ask(args)
    if args.command in ("undo", "replay"):
        from agentls.cli.history import run_replay, run_undo

        return run_undo(args) if args.command == "undo" else run_replay(args)
    if args.command == "mcp":
        from agentls.cli.mcp_list import run_mcp_list

        return run_mcp_list(args)
    if args.command == "doctor":
        from agentls.cli.doctor import run_doctor

        return run_doctor(args)
    if args.command == "memory":
        from agentls.cli.memory import run_memory

        return run_memory(args)
    if args.command == "trust":
        from agentls.cli.trust import run_trust

        return run_trust(args)
    from agentls.cli.history import run_sessions, run_show

    if args.command == "sessions":
        return run_sessions(args)
    return run_show(args)


def _log_to_stderr() -> None:
    """Warnings on stderr, what they quote shown as escapes, through whatever sys.stderr is
    when they are written (`agentls ask` queues its output: `output.py`)."""
    import logging

    from agentls.cli.visible import visible

    class Visible(logging.Formatter):
        def format(self, record: logging.LogRecord) -> str:
            return visible(super().format(record))

    class CurrentStderr:
        def write(self, text: str) -> int:
            return sys.stderr.write(text)

        def flush(self) -> None:
            sys.stderr.flush()

    handler = logging.StreamHandler(CurrentStderr())
    handler.setFormatter(Visible("agentls: %(levelname)s: %(message)s"))
    logging.basicConfig(level=logging.WARNING, handlers=[handler])


def _valid_hostport(value: str) -> bool:
    _, sep, port = value.rpartition(":")
    return bool(sep) and port.isdigit() and 0 < int(port) < 65536


if __name__ == "__main__":
    sys.exit(main())
