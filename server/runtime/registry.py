"""The tool registry: tools by name and what each mode shows the model."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agentls.contracts.model_io import ToolSpec
from agentls.contracts.tooling import Risk
from agentls.permissions.modes import Mode, is_visible
from agentls.workspace.interface import ToolDefinition


class ToolRegistry:
    def __init__(self, tools: Iterable[ToolDefinition[Any]]) -> None:
        self._tools: dict[str, ToolDefinition[Any]] = {}
        for tool in tools:
            if tool.name in self._tools:
                raise ValueError(f"two tools are named {tool.name}")
            self._tools[tool.name] = tool
        self._specs: dict[Mode, tuple[ToolSpec, ...]] = {}
        self._spec_names: dict[Mode, list[str]] = {}
        # Tools whose calls edit files (what the context layer pins as "being edited").
        self.write_tools = frozenset(n for n, t in self._tools.items() if t.risk is Risk.WRITE)

    def extended(self, tools: Iterable[ToolDefinition[Any]]) -> ToolRegistry:
        """These tools and more (a run's external tools); a name already taken is refused."""
        return ToolRegistry([*self._tools.values(), *tools])

    def get(self, name: str) -> ToolDefinition[Any] | None:
        return self._tools.get(name)

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def specs(self, mode: Mode) -> tuple[ToolSpec, ...]:
        """Definitions only, never code; computed once per mode."""
        specs = self._specs.get(mode)
        if specs is None:
            specs = tuple(
                ToolSpec(t.name, t.description, t.input_schema())
                for t in self._tools.values()
                if is_visible(t.risk, mode, read_only_hint=t.read_only_hint)
            )
            self._specs[mode] = specs
        return specs

    def spec_names(self, mode: Mode) -> list[str]:
        """The names of ``specs(mode)``, as each model request logs them; once per mode."""
        names = self._spec_names.get(mode)
        if names is None:
            names = self._spec_names[mode] = [spec.name for spec in self.specs(mode)]
        return names
