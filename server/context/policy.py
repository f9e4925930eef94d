"""How much of the model's context window a projection may use, and when to shrink it.

All figures are tokens. The window comes from the model table; a model the
table does not know (any local model) gets a conservative default that the
``contextWindow`` setting overrides.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentls.pricing import price_for

# Local servers often run with 4k-8k of context (llama.cpp's --n_ctx, Ollama's
# num_ctx); assuming more would let a long session overflow silently there.
DEFAULT_CONTEXT_WINDOW = 8192
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


def context_window(model_id: str, override: int | None = None) -> int:
    if override is not None:
        return override
    price = price_for(model_id)
    return price.context_window if price is not None else DEFAULT_CONTEXT_WINDOW


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
