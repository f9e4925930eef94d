"""The session: its append-only event log, the state folded from it, the store and the lock.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

The append-only JSONL event log (`log.py`: `append` writes at once, with any staged
lines before it in the same write; `stage` keeps a line for the next write or until the
run next waits, so a turn is two writes);

`events.py`: one typed class per event kind and their union `SessionEvent`
(`SESSION_EVENTS`, `session_event_schema()`; `HookRun`, one hook command's run);

`records.py`: the shapes events carry (messages as read, run result, problems);

`upgrade.py`: schema-1 lines in today's shape;

`encoding.py`: an encoder per event kind generated from its fields, written by orjson
byte for byte as pydantic writes it (pydantic writes what orjson would write
differently);

`durability.py`: one fsync thread per process for every log (group commit; a closed log
is never synced); the reader (typed events), the reducer that folds them into
`SessionState`, the store (one file per session under the state dir; listing keeps each
session's summary until its file changes)

`lock.py` (one writer per session across processes: a `flock` on `<id>.lock` naming its
holder's face and pid; the file stays open while the session does, so each run takes the
lock with one write); `transcript.py`, the transcript renderer (hook runs marked `⚑`)
and `write_transcript` (the markdown file made again from the log, written whole);

`labels.py`: a session's label and a run's title, the person's words (a prompt's first
paragraph: what the faces add follows it).
"""
