"""A run's log and observer, watched for telemetry when it is enabled.

The one entry point the conversation uses (lazily, only when the settings enable
telemetry): it loads the SDK and the exporters on first use. Where export cannot work
(the SDK not installed, a protocol it does not speak, exporters that fail to start) the
person is told once and the run goes on unwatched.
"""

from __future__ import annotations

import logging

from agentls.contracts.observer import RunObserver
from agentls.runtime.pipeline import AuditLog
from agentls.telemetry.config import TelemetryConfig

log = logging.getLogger("agentls.telemetry")
_told: set[str] = set()


def warm(config: TelemetryConfig) -> None:
    """Load the SDK and start ``config``'s exporters (what fails is told at the first run)."""
    if config.problem() is None:
        try:
            from agentls.telemetry.export import exporters_for

            exporters_for(config)
        except Exception:  # told when a run would use them
            log.debug("telemetry exporters did not start", exc_info=True)


def watch_run(
    config: TelemetryConfig,
    *,
    session_id: str,
    model_id: str,
    mode: str,
    person: bool,
    audit: AuditLog,
    observer: RunObserver,
) -> tuple[AuditLog, RunObserver]:
    """``audit`` and ``observer``, each also feeding the run's telemetry."""
    problem = config.problem()
    if problem is None:
        try:
            from agentls.telemetry.export import exporters_for
            from agentls.telemetry.watch import RunWatch, WatchedAudit, WatchedObserver

            exporters = exporters_for(config)
        except Exception as exc:  # telemetry never stops a run
            problem = f"telemetry is off: its exporters did not start ({exc!r})"
        else:
            watch = RunWatch(
                exporters, session_id=session_id, model_id=model_id, person=person,
                log_content=config.log_content, mode=mode,
            )  # fmt: skip
            return WatchedAudit(audit, watch), WatchedObserver(observer, watch)
    if problem not in _told:
        _told.add(problem)
        log.warning("%s; runs go on without it", problem)
    return audit, observer
