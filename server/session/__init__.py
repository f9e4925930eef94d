"""The session: its append-only event log, the state folded from it, the store and the lock.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

The append-only JSONL event log (`log.py`: `append` writes at once, with any staged
lines before it in the same write; `stage` keeps a line for the next write or until the
run next waits, so a turn is two writes);

Each log line is one event: the envelope `v` (schema version), `seq`, `ts`, `kind`, `run`,
`turn`, then the payload in camelCase; writers' events are checked by the type checker
(a test validates every writer's lines), readers parse into the union: version-1 lines
upgraded, unknown kinds skipped, a newer `v` refused.

`events.py`: one typed class per event kind and their union `SessionEvent`
(`SESSION_EVENTS`, `session_event_schema()`; `HookRun`, one hook command's run);

`records.py`: the shapes events carry (messages as read, run result, problems, plan
steps);

`upgrade.py`: schema-1 lines in today's shape;

`forking.py`: a fork's log made from another's events (the conversation copied up to
an ask, the file history left out, lines numbered again), `ForkRefused`; the store
writes it whole (`SessionStore.fork`);

`encoding.py`: an encoder per event kind generated from its fields, written by orjson
byte for byte as pydantic writes it (pydantic writes what orjson would write
differently);

`durability.py`: one fsync thread per process for every log (group commit; a closed log
is never synced); `reader.py` (typed events), `reducer.py`, which folds them into
`SessionState` (`state.py`) (asks numbered from 1; a `rewound` event cuts the history where the
first ask it takes back began, and marks them; the model's latest checklist, the plan
agreed in plan mode), `store.py` (one file per session under the state dir; listing
keeps each session's summary until its file changes)

`lock.py` (one writer per session across processes: a `flock` on `<id>.lock` naming its
holder's face and pid; the file stays open while the session does, so each run takes the
lock with one write); `transcript.py`, the transcript renderer (hook runs marked `⚑`)
and `write_transcript` (the markdown file made again from the log, written whole; each
run's final plan, a proposed plan and its answer, the person's words where they reached
a run);

`images.py`: `SessionImages`, a session's prompt images kept by sha256 in its own folder
(`sessions/<id>/images/`), read back into a rebuilt history (one gone or changed becomes
a line saying so), and named by replay when missing.

`labels.py`: a session's label and a run's title, the person's words (a prompt's first
paragraph: what the faces add follows it).
"""
