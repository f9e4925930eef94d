"""OpenTelemetry export of runs: spans, metrics and log records from the events a run writes.

Only `config` loads with the settings; the rest (and the OpenTelemetry SDK) loads when
telemetry is enabled, with the first run that exports.

What each file holds (ARCHITECTURE.md has the package's borders and invariants):

OpenTelemetry export of live runs, loaded only when `telemetry.enabled`: `config.py`
(`TelemetryConfig`, plain values with the settings; endpoint and protocol from them or
the `OTEL_*` variables; no SDK)

`wiring.py` (`watch_run`, the one entry point `run_builder` calls: the run's log and
observer wrapped, or told once why not)

`watch.py` (`RunWatch`: the events the loop and runtime write, handed on after the log
has them, turned into `invoke_agent`/`chat`/`execute_tool` spans, metrics and decision
and error records; `WatchedObserver` for the first token)

`export.py` (the SDK's providers and OTLP exporters per configuration, batching
processors with bounded queues, delivery counted, a bounded flush at exit).
"""
