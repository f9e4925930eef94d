"""The session log's event kinds and their payloads (schema version 1).

Each line of a session's JSONL log is one event:

    {"v": 1, "seq": N, "ts": UNIX_SECONDS, "kind": KIND, "run": RUN_ID|null,
     "turn": N|null, ...payload}

``seq`` starts at 1 and runs on without gaps in a file, across resumes. The
envelope keys come first, in this order: listing sessions reads a line's kind
before parsing its (possibly large) payload. A reader refuses ``v`` above
SCHEMA_VERSION rather than guess.

Kinds and payload fields:

session_started   sessionId, workspace (absolute path), model, createdAt (ISO 8601)
run_started       prompt, settings (dict: model, mode, maxTurns, maxTokens, maxCostUsd,
                  timeoutSeconds, ...), mode (the mode the run starts in, after any
                  mode_changed)
user_message      message (message_to_dict form)
model_request     model, messages (count, as projected), tools (names), estimatedTokens
                  (of the whole prompt, calibrated)
model_output      message (assistant message, message_to_dict form), stopReason
usage             usage (Usage.to_dict), costUsd (float|null, this call),
                  totalCostUsd (float|null, the run so far), purpose ("compaction" for
                  a summary call; absent for the agent's own calls)
context_projected written when the projection's shape changes (not every turn): the
                  model then sees [summary head] + history[fromMessage:], where every
                  tool result longer than bulkyChars in history[elidedFrom:elidedBefore]
                  is elided to a stub (elidedFrom: fromMessage when absent).
                  fromMessage, summarySeq (seq of the context_summary used, or null),
                  elidedFrom, elidedBefore, bulkyChars, elided (count),
                  estimatedTokens, compactAt, window
context_summary   summary (always true: written by a model, never a fact), text, pinned
                  (facts taken from the history), fromMessage, upToMessage (it stands
                  for history[:upToMessage]), reason ("threshold"|"prompt_too_long"),
                  model
tool_intent       callId, name, input, summary (one line for a person)
decision          callId, verdict ("allow"|"deny"), source, answer (null|ApprovalAnswer)
observation       callId, name, ok, content, error (null|ErrorCode), retryable, meta
tool_results      message (the user message of tool_result blocks appended to history)
mode_changed      mode
checkpoint_started number, before (the snapshot before a turn that may change files)
checkpoint        number, before, after (private git commits), changed [{path, status}],
                  interrupted (closed after a crash)
undo              turn (the last checkpoint number undone), turns (all of them), ask (a whole
                  ask: its runId), restored, removed, conflicts, done
problems          problems [{path, line, message, source, severity, code}] the turn's edits
                  introduced (language servers), unsettled (files still being checked),
                  note (the text added to the tool_results that follow)
rules_saved       rules (allow rules "always allow" saved), path (the workspace settings file)
run_finished      result (RunResult.to_dict)
run_closed        reason, detail  (written on resume for a run that never finished)
"""

SCHEMA_VERSION = 1

SESSION_STARTED = "session_started"
RUN_STARTED = "run_started"
USER_MESSAGE = "user_message"
MODEL_REQUEST = "model_request"
MODEL_OUTPUT = "model_output"
CONTEXT_SUMMARY = "context_summary"
USAGE = "usage"
TOOL_INTENT = "tool_intent"
DECISION = "decision"
OBSERVATION = "observation"
TOOL_RESULTS = "tool_results"
MODE_CHANGED = "mode_changed"
PROBLEMS = "problems"
CHECKPOINT_STARTED = "checkpoint_started"
CHECKPOINT = "checkpoint"
UNDO = "undo"
RUN_FINISHED = "run_finished"
RUN_CLOSED = "run_closed"
