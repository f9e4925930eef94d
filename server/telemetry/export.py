"""The OpenTelemetry SDK set up for one telemetry configuration: providers, OTLP exporters,
instruments, and an exit that never waits long.

Spans and log records go through the SDK's batching processors (a bounded queue, exported
on the SDK's own worker thread), metrics through a periodic reader (its own thread), so
a turn only ever adds to a queue in memory. Each exporter is wrapped to count what it
delivered and what it did not; a full queue drops what does not fit. At exit the queues
get `EXIT_FLUSH_SECONDS` to reach the collector, then the exporters are shut (their
retries stop) and what was not delivered is counted in one warning. Nothing is set as
OpenTelemetry's global provider: agentls's telemetry is its own.
"""

from __future__ import annotations

import atexit
import importlib
import logging
import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.sdk._logs import LoggerProvider, ReadableLogRecord
from opentelemetry.sdk._logs.export import (
    BatchLogRecordProcessor,
    LogRecordExporter,
    LogRecordExportResult,
)
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import (
    MetricExporter,
    MetricExportResult,
    MetricReader,
    MetricsData,
    PeriodicExportingMetricReader,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

from agentls import __version__
from agentls.telemetry.config import TelemetryConfig

log = logging.getLogger("agentls.telemetry")

EXIT_FLUSH_SECONDS = 2.0  # the longest an exiting process waits for the collector
QUEUE_SIZE = 2048  # spans, and log records, waiting for export (then dropped, counted)


def _quiet_sdk() -> None:
    """The SDK's own failure messages (one per failed batch and retry) stay off the person's
    terminal and editor log; agentls says once what was not delivered."""
    sdk = logging.getLogger("opentelemetry")
    if not any(isinstance(h, logging.NullHandler) for h in sdk.handlers):
        sdk.addHandler(logging.NullHandler())
    sdk.propagate = False


@dataclass
class Delivery:
    """What one signal's exporter was given and how much of it reached the collector."""

    queued: int = 0  # handed to the SDK by agentls
    delivered: int = 0
    failed: int = 0  # in batches the collector did not take
    failing: bool = False  # the last export failed: the collector is down or refusing
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def exported(self, count: int, ok: bool) -> None:
        with self.lock:
            if ok:
                self.delivered += count
            else:
                self.failed += count
            self.failing = not ok

    def add(self, count: int = 1) -> None:
        with self.lock:
            self.queued += count

    @property
    def undelivered(self) -> int:
        return max(self.queued - self.delivered, 0)


class _CountedSpans(SpanExporter):
    def __init__(self, inner: SpanExporter, delivery: Delivery) -> None:
        self.inner, self.delivery = inner, delivery

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        result = self.inner.export(spans)
        self.delivery.exported(len(spans), result is SpanExportResult.SUCCESS)
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


class _CountedLogs(LogRecordExporter):
    def __init__(self, inner: LogRecordExporter, delivery: Delivery) -> None:
        self.inner, self.delivery = inner, delivery

    def export(self, batch: Sequence[ReadableLogRecord]) -> LogRecordExportResult:
        result = self.inner.export(batch)
        self.delivery.exported(len(batch), result is LogRecordExportResult.SUCCESS)
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()  # type: ignore[no-untyped-call]

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


class _CountedMetrics(MetricExporter):
    """Counts export batches (metrics are sums: a failed batch is sent again, summed, next)."""

    def __init__(self, inner: MetricExporter, delivery: Delivery) -> None:
        super().__init__(
            preferred_temporality=inner._preferred_temporality,
            preferred_aggregation=inner._preferred_aggregation,
        )
        self.inner, self.delivery = inner, delivery

    def export(
        self, metrics_data: MetricsData, timeout_millis: float = 10_000, **kwargs: Any
    ) -> MetricExportResult:
        self.delivery.add()
        result = self.inner.export(metrics_data, timeout_millis=timeout_millis, **kwargs)
        self.delivery.exported(1, result is MetricExportResult.SUCCESS)
        return result

    def force_flush(self, timeout_millis: float = 10_000) -> bool:
        return self.inner.force_flush(timeout_millis)

    def shutdown(self, timeout_millis: float = 30_000, **kwargs: Any) -> None:
        self.inner.shutdown(timeout_millis=timeout_millis, **kwargs)


def _exporters(config: TelemetryConfig) -> tuple[SpanExporter, MetricExporter, LogRecordExporter]:
    """The OTLP exporters of the configured protocol (what is unset: the OTEL_* variables)."""
    headers = dict(config.headers) or None
    base = config.endpoint.rstrip("/") if config.endpoint else None
    if config.resolved_protocol() == "grpc":  # an optional package: found at run time
        grpc = "opentelemetry.exporter.otlp.proto.grpc"
        options: dict[str, Any] = {"endpoint": base, "headers": headers}
        spans = importlib.import_module(f"{grpc}.trace_exporter").OTLPSpanExporter
        metrics = importlib.import_module(f"{grpc}.metric_exporter").OTLPMetricExporter
        logs = importlib.import_module(f"{grpc}._log_exporter").OTLPLogExporter
        return spans(**options), metrics(**options), logs(**options)
    from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    def at(path: str) -> str | None:
        return f"{base}/v1/{path}" if base else None  # None: the exporter reads the variables

    return (
        OTLPSpanExporter(endpoint=at("traces"), headers=headers),
        OTLPMetricExporter(endpoint=at("metrics"), headers=headers),
        OTLPLogExporter(endpoint=at("logs"), headers=headers),
    )


def _resource() -> Resource:
    """service.name agentls unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES name it;
    the rest of OTEL_RESOURCE_ATTRIBUTES is read by the SDK."""
    attributes: dict[str, str] = {"service.version": __version__}
    named = os.environ.get("OTEL_SERVICE_NAME") or "service.name=" in os.environ.get(
        "OTEL_RESOURCE_ATTRIBUTES", ""
    )
    if not named:
        attributes["service.name"] = "agentls"
    return Resource.create(attributes)


class Exporters:
    """One configuration's providers, instruments and delivery counts, for the process."""

    def __init__(self, config: TelemetryConfig) -> None:
        _quiet_sdk()
        self.config = config
        self.spans, self.logs, self.metrics = Delivery(), Delivery(), Delivery()
        signals = config.signals()
        span_exporter, metric_exporter, log_exporter = _exporters(config)
        resource = _resource()
        self.tracer_provider = TracerProvider(resource=resource, shutdown_on_exit=False)
        if "traces" in signals:
            self.tracer_provider.add_span_processor(
                BatchSpanProcessor(
                    _CountedSpans(span_exporter, self.spans), max_queue_size=QUEUE_SIZE
                )
            )
        readers: list[MetricReader] = []
        if "metrics" in signals:
            readers.append(
                PeriodicExportingMetricReader(_CountedMetrics(metric_exporter, self.metrics))
            )
        self.meter_provider = MeterProvider(
            resource=resource, metric_readers=readers, shutdown_on_exit=False
        )
        self.logger_provider = LoggerProvider(resource=resource, shutdown_on_exit=False)
        if "logs" in signals:
            self.logger_provider.add_log_record_processor(
                BatchLogRecordProcessor(
                    _CountedLogs(log_exporter, self.logs), max_queue_size=QUEUE_SIZE
                )
            )
        self._raw = (span_exporter, metric_exporter, log_exporter)
        self.tracer = self.tracer_provider.get_tracer("agentls", __version__)
        self.meter = self.meter_provider.get_meter("agentls", __version__)
        self.logger = self.logger_provider.get_logger("agentls", __version__)
        self.instruments = Instruments(self.meter)
        self.sessions: set[str] = set()  # counted once per process
        self.signals = signals
        self.closed = False

    def span_ended(self) -> None:
        if "traces" in self.signals:
            self.spans.add()

    def record_emitted(self) -> None:
        if "logs" in self.signals:
            self.logs.add()

    def shutdown(self, seconds: float = EXIT_FLUSH_SECONDS) -> None:
        """Flush what is queued for at most ``seconds``, then stop; say what was lost."""
        if self.closed:
            return
        self.closed = True
        deadline = time.monotonic() + seconds
        for exporter in self._raw:
            _one_try_each(exporter)
        stops: list[Callable[[], object]] = [
            self.tracer_provider.shutdown,
            self.logger_provider.shutdown,
            lambda: self.meter_provider.shutdown(timeout_millis=seconds * 1000),
        ]
        threads = [threading.Thread(target=_quietly(s), daemon=True) for s in stops]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(max(deadline - time.monotonic(), 0.0))
        if any(t.is_alive() for t in threads):  # a collector down or slow: stop its retries
            for exporter in self._raw:
                _quietly(exporter.shutdown)()
        self._report()

    def _report(self) -> None:
        lost = [
            f"{d.undelivered} of {d.queued} {what}"
            for what, d in (("spans", self.spans), ("log records", self.logs))
            if d.undelivered
        ]
        if self.metrics.failed:
            lost.append(f"{self.metrics.failed} of {self.metrics.queued} metric exports")
        if lost:
            log.warning(
                "telemetry: %s were not delivered to %s (the collector is down, slow or "
                "refusing them)",
                ", ".join(lost),
                self.config.resolved_endpoint(),
            )


class Instruments:
    """The metrics agentls records (names in the README's telemetry section)."""

    def __init__(self, meter: Any) -> None:
        self.tokens = meter.create_counter(
            "agentls.token.usage", unit="{token}", description="tokens by kind"
        )
        self.cost = meter.create_counter(
            "agentls.cost.usage", unit="USD", description="model cost, where the price is known"
        )
        self.runs = meter.create_counter(
            "agentls.run.count", unit="{run}", description="runs by how they ended"
        )
        self.decisions = meter.create_counter(
            "agentls.tool.decision",
            unit="{decision}",
            description="tool calls by verdict and source",
        )
        self.sessions = meter.create_counter(
            "agentls.session.count", unit="{session}", description="sessions that ran"
        )
        self.first_token = meter.create_histogram(
            "agentls.time_to_first_token", unit="s", description="model request to first token"
        )
        self.operation = meter.create_histogram(
            "gen_ai.client.operation.duration", unit="s", description="model request duration"
        )
        self.token_usage = meter.create_histogram(
            "gen_ai.client.token.usage", unit="{token}", description="tokens per model request"
        )


def _one_try_each(exporter: object) -> None:
    """From now on each batch is sent once, without waiting to retry: the OTLP/HTTP
    exporters retry with growing pauses until an event their shutdown sets (not public:
    looked up, and where it is not there the exit's bound still holds)."""
    event = getattr(getattr(exporter, "_client", None), "_shutdown_event", None)
    if isinstance(event, threading.Event):
        event.set()


def _quietly(call: Callable[[], object]) -> Callable[[], None]:
    def run() -> None:
        try:
            call()
        except Exception:  # shutting down: nothing left to tell the run
            log.debug("telemetry shutdown step failed", exc_info=True)

    return run


_ACTIVE: dict[TelemetryConfig, Exporters] = {}
_ACTIVE_LOCK = threading.Lock()
_AT_EXIT: list[bool] = []  # shutdown_all registered with atexit


def exporters_for(config: TelemetryConfig) -> Exporters:
    """The process's exporters for ``config``, made on first use (shut at exit)."""
    with _ACTIVE_LOCK:
        found = _ACTIVE.get(config)
        if found is None or found.closed:
            if not _AT_EXIT:
                atexit.register(shutdown_all)
                _AT_EXIT.append(True)
            found = _ACTIVE[config] = Exporters(config)
        return found


def shutdown_all(seconds: float = EXIT_FLUSH_SECONDS) -> None:
    """Every configuration's exporters flushed together, within ``seconds`` in all."""
    with _ACTIVE_LOCK:
        active = list(_ACTIVE.values())
        _ACTIVE.clear()
    threads = [threading.Thread(target=e.shutdown, args=(seconds,), daemon=True) for e in active]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(seconds + 0.5)
