"""A fork's log: another session's history, up to (before) one of its asks or whole.

The fork's events are the original's, in order, from its start to where ask N began
(the Nth `run_started`; all of them without N), under a `session_started` of its own
that names where it came from. What is copied is the conversation: the runs, their
messages and decisions, mode changes, "always" rules, summaries and rewinds, so the
fork folds into the same history, shows the same asks (numbered as there) and replays
exactly. What is not copied is the file history (`checkpoint_started`, `checkpoint`,
`undo`, and the files half of a `rewound`): the files those asks changed stay the
original session's to undo, and the fork's own undo and rewind reach only what its own
asks change. Lines are numbered again from 1, and the one reference between lines (a
projection's `summarySeq`) follows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from agentls.session import events as ev
from agentls.session.events import SessionEvent
from agentls.session.records import ForkOrigin

# The file history: it belongs to the session whose asks changed the files.
_FILE_HISTORY = (ev.CheckpointStarted, ev.Checkpoint, ev.Undo)


class ForkRefused(ValueError):
    """The fork cannot be made; nothing was written. The message says why."""


def fork_events(
    events: Sequence[SessionEvent],
    session_id: str,
    before_ask: int | None,
    *,
    created_at: str,
    ts: float,
) -> list[ev.Event]:
    """The events of a fork named ``session_id`` (made at ``created_at``, ``ts``) of the
    session logged as ``events``: its history before ask ``before_ask`` (1-based), or all
    of it (None)."""
    if not events or not isinstance(events[0], ev.SessionStarted):
        raise ForkRefused("the session's log does not start with its session_started line")
    started = events[0]
    runs = [i for i, event in enumerate(events) if isinstance(event, ev.RunStarted)]
    if before_ask is None:
        end, asks = len(events), len(runs)
    elif 1 <= before_ask <= len(runs):
        end, asks = runs[before_ask - 1], before_ask - 1
    elif not runs:
        raise ForkRefused(f"no ask {before_ask}: the session has no asks yet")
    else:
        there = "ask 1" if len(runs) == 1 else f"asks 1–{len(runs)}"
        raise ForkRefused(f"no ask {before_ask} in the session ({there})")
    head = ev.SessionStarted(
        session_id=session_id,
        workspace=started.workspace,
        model=started.model,
        created_at=created_at,
        forked_from=ForkOrigin(session_id=started.session_id, ask=before_ask, asks=asks),
    )
    copied: list[ev.Event] = [dataclasses.replace(head, seq=1, ts=ts)]
    seqs: dict[int, int] = {}  # the original's seq -> the fork's
    for event in events[1:end]:
        kept = _conversation_part(event)
        if kept is None:
            continue
        seq = len(copied) + 1
        seqs[event.seq] = seq
        if isinstance(kept, ev.ContextProjected) and kept.summary_seq is not None:
            kept = dataclasses.replace(kept, summary_seq=seqs.get(kept.summary_seq))
        copied.append(dataclasses.replace(kept, v=ev.SCHEMA_VERSION, seq=seq))
    return copied


def _conversation_part(event: SessionEvent) -> ev.Event | None:
    if isinstance(event, _FILE_HISTORY):
        return None
    if isinstance(event, ev.Rewound):
        if not event.conversation:
            return None  # it put files back only
        return dataclasses.replace(
            event, files=False, turns=[], restored=[], removed=[], kept=[], refused=[]
        )
    return event
