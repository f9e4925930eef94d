"""agentls beside the agents people use, on the same task, machine and run.

    make bench-peers      (or: python -m tests.bench.bench_peers [--runs 3] [--only NAME])

Claude Code, Codex CLI and Qwen Code come from npm at the versions pinned in
peers/npm/package-lock.json, installed into a cache folder outside the clone
(peers/install.sh). Each agent, and agentls three times (the Anthropic provider as
agentls runs by default, served by its warm process; the same with each ask in its
own process, AGENTLS_WARM=0; and the OpenAI provider, cold, with a model the table
does not know), runs the same task against
the project's fake model servers (Anthropic Messages, OpenAI chat completions,
OpenAI Responses for Codex): ten ~2 KB Python files, the model scripted to read
them one per turn with the agent's own read tool, then answer. Every request is
recorded. Only loopback is reachable: every proxy variable points at a guard
that refuses any other host and counts what was refused. Figures are medians of
``--runs`` runs after a warm-up run. Then `agentls serve` beside the Copilot
language server for `initialize`, and where agentls's start-up time goes.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from tests.bench.peers import agents as peer_agents
from tests.bench.peers.agents import Agent, make_workspace
from tests.bench.peers.guard import LoopbackGuard
from tests.bench.peers.measure import RunFigures, run_once, time_command
from tests.bench.peers.servers import initialize
from tests.bench.peers.wire import BYTES_PER_TOKEN, breakpoints, median
from tests.bench.run_all import machine

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
MODELS = json.loads((ROOT / "server" / "data" / "models.json").read_text(encoding="utf-8"))
PRICED_AT = ("anthropic:claude-sonnet-4-5", "openai:gpt-5")


def install() -> Path:
    done = subprocess.run(
        ["bash", str(HERE / "peers" / "install.sh")], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"installing the peers failed:\n{done.stderr[-2000:]}")
    return Path(done.stdout.strip().splitlines()[-1])


def version_of(agent: Agent, paths: peer_agents.Paths) -> str:
    done = subprocess.run(
        agent.version(paths), env=agent.environment(paths), capture_output=True, text=True,
        stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    return (
        (done.stdout.strip() or done.stderr.strip()).splitlines()[0]
        if done.returncode == 0
        else "?"
    )


def _m(runs: Sequence[RunFigures], figure: Callable[[RunFigures], float]) -> float:
    return median([figure(run) for run in runs])


def peak(run: RunFigures) -> float:
    return run.peak_rss_mib


def _pct(value: float) -> str:
    return f"{value:.0%}"


def results_table(
    names: list[str], runs: dict[str, list[RunFigures]], extra: dict[str, dict[str, str]]
) -> str:
    rows: list[tuple[str, Callable[[str], str]]] = []

    def first(name: str) -> RunFigures:
        return runs[name][0]

    def first_request(name: str) -> str:
        size = first(name).conversation.sizes[0]
        return f"{size:,} / {size // BYTES_PER_TOKEN:,}"

    def tools(name: str) -> str:
        count, size = first(name).conversation.tools()
        return f"{count} / {size:,}"

    def shares(name: str) -> str:
        values = first(name).conversation.prefix_shares()
        return f"{_pct(min(values))} / {_pct(median(values))}" if values else "—"

    def rewritten(name: str) -> str:
        return f"{sum(first(name).conversation.rewritten()):,}"

    def points(name: str) -> str:
        conversation = first(name).conversation
        marks = breakpoints(conversation.api, conversation.bodies[-1])
        if conversation.api != "anthropic":
            return "none (automatic prefix cache)"
        return ", ".join(marks) or "none"

    def seconds(figure: Callable[[RunFigures], float]) -> Callable[[str], str]:
        return lambda name: f"{_m(runs[name], figure):.2f} s"

    rows = [
        ("version", lambda n: extra[n]["version"]),
        ("first request, bytes / ~tokens", first_request),
        ("tools offered / their bytes", tools),
        ("requests in the task", lambda n: str(len(first(n).conversation.bodies))),
        ("start to first model request", seconds(lambda r: r.to_first_request)),
        ("whole task", seconds(lambda r: r.whole)),
        ("CPU, whole task", seconds(lambda r: r.cpu)),
        ("peak RSS of the process tree", lambda n: f"{_m(runs[n], peak):.0f} MiB"),
        ("`--version`", lambda n: extra[n]["version_time"]),
        ("bytes of earlier requests rewritten", rewritten),
        ("prefix repeating the request before, lowest / median", shares),
        ("cache breakpoints (last request; messages counted from the end)", points),
        ("hosts beyond loopback refused", lambda n: extra[n]["refused"]),
    ]  # fmt: skip
    lines = ["| measure | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for label, cell in rows:
        lines.append(f"| {label} | " + " | ".join(cell(n) for n in names) + " |")
    return "\n".join(lines)


def shares_table(names: list[str], runs: dict[str, list[RunFigures]]) -> str:
    longest = max(len(runs[n][0].conversation.bodies) for n in names)
    head = " | ".join(str(k + 1) for k in range(1, longest))
    lines = [f"| request | {head} |", "|---" * longest + "|"]
    for name in names:
        values = runs[name][0].conversation.prefix_shares()
        cells = [f"{v:.1%}" for v in values] + [""] * (longest - 1 - len(values))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def cost_table(names: list[str], runs: dict[str, list[RunFigures]]) -> str:
    heads = []
    for key in PRICED_AT:
        heads += [f"{key} uncached", f"{key} cached"]
    lines = [
        "| agent | input ~tokens | " + " | ".join(heads) + " |",
        "|---" * (len(heads) + 2) + "|",
    ]
    for name in names:
        conversation = runs[name][0].conversation
        tokens = sum(len(s) for s in conversation.streams) // BYTES_PER_TOKEN
        cells = []
        for key in PRICED_AT:
            price = MODELS["models"][key]
            uncached, cached = conversation.cost(price, explicit_cache=key.startswith("anthropic:"))
            cells += [f"${uncached:.4f}", f"${cached:.4f}"]
        lines.append(f"| {name} | {tokens:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def servers_table(agents_dir: Path, work: Path, runs: int) -> str:
    home = work / "lsp-home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", ""), "HOME": str(home),
        "AGENTLS_STATE_DIR": str(home / "state"), "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"), "XDG_STATE_HOME": str(home / ".local/state"),
    }  # fmt: skip
    commands = {
        "agentls serve": [str(Path(sys.executable).with_name("agentls")), "serve"],
        "Copilot language server": [
            str(agents_dir / "node_modules" / ".bin" / "copilot-language-server"), "--stdio",
        ],
    }  # fmt: skip
    lines = ["| server | `initialize` answered | RSS then |", "|---|---|---|"]
    for name, command in commands.items():
        try:
            initialize(command, work, env)  # warm-up
            figures = [initialize(command, work, env) for _ in range(runs)]
        except (OSError, RuntimeError) as exc:
            lines.append(f"| {name} | did not start offline: {exc} | — |")
            continue
        seconds = median([f[0] for f in figures])
        rss = median([f[1] for f in figures])
        lines.append(f"| {name} | {seconds:.2f} s | {rss:.0f} MiB |")
    return "\n".join(lines)


def startup_table(runs: int, first_request: float, warm_first_request: float | None) -> str:
    """Each step of a cold start in a fresh process, beside the whole cold and warm asks."""
    python = sys.executable
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    steps = [
        ("the interpreter (`python -c pass`)", "pass"),
        ("`import agentls.cli.ask` (what the command imports)", "import agentls.cli.ask"),
        ("the Anthropic SDK alone (`import anthropic`)", "import anthropic"),
        ("`agentls.cli.ask` and the provider's module",
         "import agentls.cli.ask, agentls.providers.anthropic"),
    ]  # fmt: skip
    lines = ["| step, each in a fresh process | time |", "|---|---|"]
    for label, code in steps:
        command = [python, "-c", code]
        time_command(command, env)
        lines.append(
            f"| {label} | {median([time_command(command, env) for _ in range(runs)]):.2f} s |"
        )
    lines.append(
        "| `agentls ask` to its first model request, in its own process "
        f"(`AGENTLS_WARM=0`, above) | {first_request:.2f} s |"
    )
    if warm_first_request is not None:
        lines.append(
            "| the same, served by the warm process (the default, above) | "
            f"{warm_first_request:.2f} s |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--only", action="append", help="measure only agents whose name contains this"
    )
    args = parser.parse_args()
    agents_dir = install()
    print("# agentls beside the agents people use\n")
    print(machine(), "\n")
    chosen = [
        a
        for a in peer_agents.all_agents()
        if not args.only or any(o.lower() in a.name.lower() for o in args.only)
    ]
    runs: dict[str, list[RunFigures]] = {}
    extra: dict[str, dict[str, str]] = {}
    # Not under /tmp: Codex refuses to make its helpers in a temporary folder.
    cache = agents_dir.parent / "runs"
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache) as tmp, LoopbackGuard() as guard:
        work = Path(tmp)
        workspace = work / "workspace"
        make_workspace(workspace)
        for agent in chosen:
            home = work / "home" / agent.name.replace(" ", "-").replace(":", "-")
            refused_before = len(guard.refused)
            run_once(agent, workspace, home, agents_dir, guard.url)  # the warm-up
            agent.after_warm_up()
            figures = [
                run_once(agent, workspace, home, agents_dir, guard.url) for _ in range(args.runs)
            ]
            for run in figures:
                if run.reads != peer_agents.FILES:
                    raise SystemExit(
                        f"{agent.name} read {run.reads} files, not {peer_agents.FILES}"
                    )
            hosts = sorted(set(guard.refused[refused_before:]))
            paths = peer_agents.Paths(workspace, home, agents_dir, "http://127.0.0.1:9", guard.url)
            agent.prepare(paths)
            env = agent.environment(paths)
            time_command(agent.version(paths), env)
            version_time = median(
                [time_command(agent.version(paths), env) for _ in range(args.runs)]
            )
            runs[agent.name] = figures
            extra[agent.name] = {
                "version": version_of(agent, paths),
                "version_time": f"{version_time:.3f} s",
                "refused": ", ".join(hosts) or "none",
            }
            print(f"measured {agent.name}", file=sys.stderr, flush=True)
        for pid in peer_agents.warm_processes():  # started by the warm agent's first run
            os.kill(pid, signal.SIGTERM)
        names = list(runs)
        print(f"## The task: ten reads, then an answer ({args.runs} runs after a warm-up)\n")
        print(results_table(names, runs, extra) + "\n")
        print(
            "Medians of the runs. Bytes are as sent (Content-Length); ~tokens are bytes / 4. "
            "The prefix share compares each request with the one before it, read as the API "
            "reads it (tools, system, messages; cache_control markers left out).\n"
        )
        print("## Prefix repeating the request before, per request\n")
        print(shares_table(names, runs) + "\n")
        print("## The task's input at each provider's prices\n")
        print(cost_table(names, runs) + "\n")
        print(
            "Cached: each request's prefix shared with the request before it read from the "
            "cache, the rest written to it (Anthropic) or billed as input (OpenAI).\n"
        )
        print("## Language servers\n")
        print(servers_table(agents_dir, work, args.runs) + "\n")
        if peer_agents.COLD in runs:
            first_request = _m(runs[peer_agents.COLD], lambda r: r.to_first_request)
            warm = runs.get(peer_agents.DEFAULT)
            warm_first = _m(warm, lambda r: r.to_first_request) if warm else None
            print("## Where `agentls ask` spends its start-up\n")
            print(startup_table(args.runs, first_request, warm_first) + "\n")
        ours = [n for n in (peer_agents.DEFAULT, peer_agents.COLD) if n in runs]
        if ours and "Claude Code" in runs:
            print("## Against the targets\n")
            print(targets(runs, ours))
    print(f"\nLoad average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def targets(runs: dict[str, list[RunFigures]], ours: list[str]) -> str:
    claude = runs["Claude Code"]
    lines = ["| measure | agentls | Claude Code | target | met |", "|---|---|---|---|---|"]
    for name in ours:
        for label, figure in (
            ("start to first model request", lambda r: r.to_first_request),
            ("CPU, whole task", lambda r: r.cpu),
        ):
            a, c = _m(runs[name], figure), _m(claude, figure)
            met = "yes" if a <= c else "no"
            lines.append(
                f"| {label}, {name} | {a:.2f} s | {c:.2f} s | at most Claude Code's | {met} |"
            )
    for name, figures in runs.items():
        if name.startswith("agentls"):
            total = sum(figures[0].conversation.rewritten())
            met = "yes" if total == 0 else "no"
            lines.append(
                f"| earlier requests rewritten, {name} | {total:,} bytes | — | 0 | {met} |"
            )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
