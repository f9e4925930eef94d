"""A local OTLP/HTTP collector for tests: decodes what it gets with opentelemetry-proto.

It serves `/v1/traces`, `/v1/metrics` and `/v1/logs` on 127.0.0.1 and keeps every
request's raw body (to look for text that must not be there) and what it decoded:
spans, metric names and log records, each with its attributes as plain values.
``hold()`` makes it slow: every request waits, unanswered, until ``release()``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue


def plain(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [plain(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return attributes(value.kvlist_value.values)
    return getattr(value, kind) if kind else None


def attributes(pairs: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for pair in pairs:
        assert isinstance(pair, KeyValue)
        found[pair.key] = plain(pair.value)
    return found


@dataclass
class Span:
    name: str
    kind: int
    trace_id: bytes
    span_id: bytes
    parent: bytes
    attributes: dict[str, Any]
    status: int
    resource: dict[str, Any]


@dataclass
class Record:
    event_name: str
    body: Any
    severity: int
    attributes: dict[str, Any]


@dataclass
class OtlpReceiver:
    spans: list[Span] = field(default_factory=list)
    metrics: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # name -> points
    records: list[Record] = field(default_factory=list)
    bodies: list[bytes] = field(default_factory=list)
    arrived: threading.Event = field(default_factory=threading.Event)  # a first request came
    _open: threading.Event = field(default_factory=threading.Event)
    _changed: threading.Condition = field(default_factory=threading.Condition)

    def __post_init__(self) -> None:
        self._open.set()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.arrived.set()
                receiver._open.wait()
                reply = receiver._take(self.path, body)
                self.send_response(200 if reply is not None else 404)
                self.send_header("Content-Type", "application/x-protobuf")
                data = reply or b""
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def hold(self) -> None:
        self._open.clear()

    def release(self) -> None:
        self._open.set()

    def _take(self, path: str, body: bytes) -> bytes | None:
        with self._changed:
            self.bodies.append(body)
            reply = self._decode(path, body)
            self._changed.notify_all()
            return reply

    def _decode(self, path: str, body: bytes) -> bytes | None:
        if path == "/v1/traces":
            traces = ExportTraceServiceRequest.FromString(body)
            for rs in traces.resource_spans:
                resource = attributes(rs.resource.attributes)
                for ss in rs.scope_spans:
                    for s in ss.spans:
                        self.spans.append(Span(
                            s.name, s.kind, s.trace_id, s.span_id, s.parent_span_id,
                            attributes(s.attributes), s.status.code, resource,
                        ))  # fmt: skip
            return ExportTraceServiceResponse().SerializeToString()
        if path == "/v1/metrics":
            metrics = ExportMetricsServiceRequest.FromString(body)
            for rm in metrics.resource_metrics:
                for sm in rm.scope_metrics:
                    for m in sm.metrics:
                        kind = m.WhichOneof("data")
                        points = getattr(m, kind).data_points if kind else []
                        found = self.metrics.setdefault(m.name, [])
                        found += [
                            {"attributes": attributes(p.attributes), "value": _value(p)}
                            for p in points
                        ]
            return ExportMetricsServiceResponse().SerializeToString()
        if path == "/v1/logs":
            logs = ExportLogsServiceRequest.FromString(body)
            for rl in logs.resource_logs:
                for sl in rl.scope_logs:
                    for r in sl.log_records:
                        self.records.append(Record(
                            r.event_name, plain(r.body), r.severity_number,
                            attributes(r.attributes),
                        ))  # fmt: skip
            return ExportLogsServiceResponse().SerializeToString()
        return None

    def wait_for(self, predicate: Callable[[OtlpReceiver], bool], timeout: float = 30.0) -> None:
        """Wait until what arrived satisfies ``predicate`` (bounded)."""
        with self._changed:
            if not self._changed.wait_for(lambda: predicate(self), timeout):
                raise AssertionError(
                    f"the collector did not get what was expected; spans "
                    f"{[s.name for s in self.spans]}, metrics {sorted(self.metrics)}, "
                    f"records {[r.event_name for r in self.records]}"
                )

    def span_names(self) -> list[str]:
        return [s.name for s in self.spans]

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
        self._server.shutdown()
        self._server.server_close()


def _value(point: Any) -> Any:
    """A sum's value, or how many values a histogram recorded."""
    if hasattr(point, "as_int"):
        return getattr(point, point.WhichOneof("value") or "as_int")
    return point.count
