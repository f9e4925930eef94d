"""What a run is told besides the prompt: the project's instruction files and the memory
kept across sessions, each item with where it came from.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

`instructions.py`: `InstructionsWire` (the `instructions` setting); `find_instructions`:
the person's own `AGENTS.md`, then one file per folder from the root down to the ask's
folder (`AGENTS.md`, else the first fallback), within `maxBytes`, cut on a line with a
note naming what was left out; binary, undecodable and linked-out files warned about;
secrets masked; each file's sha256.

`records.py`: `MemoryRecord` (id, content, scope, source, confidence, createdAt,
lastVerifiedAt, expiresAt, session, evidence, events).

`store.py`: `MemoryStore`, `memory/user.json` and `memory/projects/<key>.json` under the
state folder (the key from the `origin` remote, or the root); a `flock` around each
change; a file that does not load is a warning and is never written over.

`prompt_text.py`: the memories as the model sees them (a stable order, source, confidence,
age; possibly stale after 30 days).
"""
