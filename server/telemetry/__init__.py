"""OpenTelemetry export of runs: spans, metrics and log records from the events a run writes.

Only `config` loads with the settings; the rest (and the OpenTelemetry SDK) loads when
telemetry is enabled, with the first run that exports.
"""
