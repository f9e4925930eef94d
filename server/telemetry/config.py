"""What the settings say about telemetry: plain values, read without the OpenTelemetry SDK.

What the settings leave unset comes from the standard variables:
OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_EXPORTER_OTLP_HEADERS,
OTEL_RESOURCE_ATTRIBUTES (and the per-signal ones the exporters read themselves);
OTEL_TRACES_EXPORTER, OTEL_METRICS_EXPORTER or OTEL_LOGS_EXPORTER set to `none`
turn one signal off.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass

PROTOCOLS = ("http/protobuf", "grpc")
DEFAULT_ENDPOINTS = {"http/protobuf": "http://localhost:4318", "grpc": "http://localhost:4317"}
_EXPORTER_MODULES = {
    "http/protobuf": (
        "opentelemetry.exporter.otlp.proto.http",
        "opentelemetry-exporter-otlp-proto-http",
    ),
    "grpc": ("opentelemetry.exporter.otlp.proto.grpc", "opentelemetry-exporter-otlp-proto-grpc"),
}
SIGNALS = {"traces": "OTEL_TRACES_EXPORTER", "metrics": "OTEL_METRICS_EXPORTER",
           "logs": "OTEL_LOGS_EXPORTER"}  # fmt: skip


@dataclass(frozen=True, slots=True)
class TelemetryConfig:
    """Off unless ``enabled``. ``endpoint``, ``protocol`` and ``headers`` left unset come
    from the standard OTEL_EXPORTER_OTLP_* variables."""

    enabled: bool = False
    log_content: bool = False  # prompts, tool input and output (masked) in the records
    endpoint: str | None = None  # the collector's base URL (`/v1/traces` etc. added)
    protocol: str | None = None  # "http/protobuf" or "grpc"
    headers: tuple[tuple[str, str], ...] = ()

    def resolved_protocol(self) -> str:
        chosen = self.protocol or os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL", "").strip()
        return chosen or "http/protobuf"

    def resolved_endpoint(self) -> str:
        """The collector's base URL as the exporters will use it (for people to read)."""
        given = self.endpoint or os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").strip()
        return given or DEFAULT_ENDPOINTS.get(self.resolved_protocol(), "")

    def signals(self) -> tuple[str, ...]:
        """The signals exported: traces, metrics and logs unless a variable says `none`."""
        return tuple(s for s, var in SIGNALS.items() if os.environ.get(var, "").strip() != "none")

    def problem(self) -> str | None:
        """Why export cannot work here (told once; the runs go on without it), else None."""
        protocol = self.resolved_protocol()
        if protocol not in PROTOCOLS:
            return (
                f"telemetry protocol {protocol!r} is not supported: use http/protobuf (the "
                "default) or grpc"
            )
        module, package = _EXPORTER_MODULES[protocol]
        if not _installed("opentelemetry.sdk") or not _installed(module):
            return f"telemetry needs the OpenTelemetry SDK and exporter: pip install {package}"
        return None


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:  # a parent package is missing
        return False
