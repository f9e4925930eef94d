"""What a run is told besides its prompt: the instruction files and the memories that
apply, found on a worker thread at each ask and put after the fixed system prompt, so they
are part of the cached prefix and the same on every turn of the run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agentls.memory.instructions import (
    Instructions,
    InstructionsWire,
    describe_instructions,
    find_instructions,
    render_instructions,
)
from agentls.memory.prompt_text import render_memories
from agentls.memory.store import MemoryStore, now_utc
from agentls.session import events as ev
from agentls.session.records import InstructionFileRecord
from agentls.workspace.control import config_dir


@dataclass(frozen=True, slots=True)
class Guidance:
    instructions: Instructions
    memory_ids: tuple[str, ...]
    text: str  # what follows the fixed system prompt
    warnings: tuple[str, ...]

    @property
    def summary(self) -> str:
        """One line for the person: the files used (paths and sizes) and the memories."""
        parts = [describe_instructions(self.instructions)]
        if self.memory_ids:
            parts.append(f"memories: {len(self.memory_ids)}")
        return "; ".join(p for p in parts if p)

    def lines(self) -> list[str]:
        """What every face tells the person at the run's start: the summary, then what
        could not be used."""
        return [line for line in (self.summary, *self.warnings) if line]

    def event(self, run_id: str) -> ev.Guidance:
        found = self.instructions
        return ev.Guidance(
            run=run_id,
            files=[
                InstructionFileRecord(path=f.shown_as, sha256=f.sha256, bytes=f.size, cut=f.cut)
                for f in found.files
            ],
            left_out=list(found.left_out),
            memories=list(self.memory_ids),
            warnings=list(self.warnings),
        )


NO_GUIDANCE = Guidance(Instructions(), (), "", ())


def load_guidance(
    root: Path, folder: Path | None, settings: InstructionsWire, state_dir: Path | None
) -> Guidance:
    """Instruction files from the root down to ``folder`` and the memories of the person
    and this project (none without a state folder). Blocking: call it on a worker thread."""
    instructions = find_instructions(root, folder, settings, config_dir())
    warnings = list(instructions.warnings)
    memories: tuple[str, ...] = ()
    memory_text = ""
    if state_dir is not None:
        now = now_utc()
        loaded = MemoryStore(state_dir, root).load(now)
        warnings.extend(f"memory: {w}" for w in loaded.warnings)
        memories = tuple(r.id for r in loaded.records)
        memory_text = render_memories(loaded.records, now)
    sections = [s for s in (render_instructions(instructions), memory_text) if s]
    text = "\n\n" + "\n".join(sections) if sections else ""
    return Guidance(instructions, memories, text, tuple(warnings))
