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
                  timeoutSeconds)
user_message      message (message_to_dict form)
model_request     model, messages (count), tools (names), estimatedTokens
model_output      message (assistant message, message_to_dict form), stopReason
usage             usage (Usage.to_dict), costUsd (float|null, this call),
                  totalCostUsd (float|null, the run so far)
tool_intent       callId, name, input, summary (one line for a person)
decision          callId, verdict ("allow"|"deny"), source, answer (null|ApprovalAnswer)
observation       callId, name, ok, content, error (null|ErrorCode), retryable, meta
tool_results      message (the user message of tool_result blocks appended to history)
mode_changed      mode
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
USAGE = "usage"
TOOL_INTENT = "tool_intent"
DECISION = "decision"
OBSERVATION = "observation"
TOOL_RESULTS = "tool_results"
MODE_CHANGED = "mode_changed"
RULES_SAVED = "rules_saved"
RUN_FINISHED = "run_finished"
RUN_CLOSED = "run_closed"
