"""How much of the model's context window a projection may use, and when to shrink it.

All figures are tokens. The window is, first found: the ``contextWindow``
setting, the model table, what the model's server said (``providers/windows.py``:
llama.cpp, Ollama, vLLM, LM Studio), or else an assumption large enough for
today's hosted models; a window assumed too large is corrected by the loop's
recovery from "prompt is too long" (one compaction, one retry).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agentls.contracts.window import ServerWindow
from agentls.pricing import price_for

# For a model neither the table nor its server knows. Assuming a small window would
# elide and compact a hosted model's session long before it needs it (and rewrite the
# requests its cache holds); one too large costs one compaction and a retry, once.
ASSUMED_WINDOW = 200_000
DEFAULT_CONTEXT_WINDOW = ASSUMED_WINDOW
FROM_SETTING = "the contextWindow setting"
FROM_TABLE = "the model table"
ASSUMED = "assumed: the model table does not know the model and its server did not say"
DEFAULT_THRESHOLD = 0.8
DEFAULT_VERBATIM_TURNS = 4
# Tool results longer than this are "bulky": old ones may be elided to a stub.
BULKY_TOOL_RESULT_CHARS = 1024


@dataclass(frozen=True, slots=True)
class ContextPolicy:
    window: int = DEFAULT_CONTEXT_WINDOW
    max_output_tokens: int = 8192
    threshold: float = DEFAULT_THRESHOLD
    verbatim_turns: int = DEFAULT_VERBATIM_TURNS
    tool_result_budget: int | None = None  # None: a fifth of the window
    compaction: bool = True
    # Where ``window`` came from, as the doctor says it; not part of what the policy does.
    window_source: str = field(default=FROM_TABLE, compare=False)

    @property
    def hard_limit(self) -> int:
        """The most a prompt may hold: the window less room for the answer."""
        return self.window - min(self.max_output_tokens, self.window // 8)

    @property
    def compact_at(self) -> int:
        """Above this estimate the older part of the history is summarised."""
        return min(int(self.window * self.threshold), self.hard_limit)

    @property
    def old_tool_results_budget(self) -> int:
        """Tokens of bulky tool results older than the verbatim turns kept as they are."""
        if self.tool_result_budget is not None:
            return self.tool_result_budget
        return self.window // 5

    @property
    def summary_tokens(self) -> int:
        """The output limit of a compaction call: the summary must stay small."""
        return max(256, min(4096, self.window // 16))


def choose_window(
    model_id: str, override: int | None = None, server: ServerWindow | None = None
) -> tuple[int, str]:
    """(tokens, where they came from): the setting, the table, the server, or assumed."""
    if override is not None:
        return override, FROM_SETTING
    price = price_for(model_id)
    if price is not None:
        return price.context_window, FROM_TABLE
    if server is not None:
        when = f", remembered from {server.remembered}" if server.remembered else ""
        return server.tokens, f"{server.source}{when}"
    return ASSUMED_WINDOW, ASSUMED


def context_window(
    model_id: str, override: int | None = None, server: ServerWindow | None = None
) -> int:
    return choose_window(model_id, override, server)[0]


def needs_server_window(model_id: str, override: int | None) -> bool:
    """Whether only the model's server can say its window (neither setting nor table)."""
    return override is None and price_for(model_id) is None


def overflow_advice(policy: ContextPolicy, error: str, *, compacted: bool) -> str:
    """What to say when the model still refuses the prompt as too long."""
    if not policy.compaction:
        return (
            f"{error}; compaction is off, so the history cannot shrink: turn it on "
            '("compaction": true) or start a new session'
        )
    done = "even after compacting it" if compacted else "and there was nothing left to compact"
    return (
        f"{error}, {done}; lower compactionThreshold (now {policy.threshold:g}) or set "
        f"contextWindow below the model's real limit (now {policy.window:,} tokens), keep "
        f"fewer verbatimTurns (now {policy.verbatim_turns}), or start a new session"
    )
