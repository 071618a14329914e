"""A real OTLP/HTTP receiver on loopback: what a collector takes at `POST /v1/traces`.

It decodes each export as a collector does (protobuf, `ExportTraceServiceRequest` from
opentelemetry-proto; gzip or deflate if the exporter compressed it) and keeps every span with
its resource, so a test reads them as plain dicts and can scan every byte of text they hold.
"""

from __future__ import annotations

import gzip
import threading
import time
import zlib
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue


@dataclass
class Span:
    name: str
    kind: int
    trace_id: str
    span_id: str
    parent_span_id: str
    attributes: dict[str, Any]
    resource: dict[str, Any]
    status: tuple[int, str]
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def texts(self) -> list[str]:
        """Every piece of text the span carries: name, keys, values, events, status."""
        parts = [self.name, self.status[1]]
        for attrs in (self.attributes, self.resource, *(e[1] for e in self.events)):
            parts += [str(k) for k in attrs] + [str(v) for v in attrs.values()]
        parts += [e[0] for e in self.events]
        return parts


def _value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return [_value(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return _attributes(value.kvlist_value.values)
    return getattr(value, kind) if kind else None


def _attributes(pairs: Any) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs if isinstance(pair, KeyValue)}


def decode(body: bytes) -> list[Span]:
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    spans = []
    for resource_spans in request.resource_spans:
        resource = _attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for s in scope_spans.spans:
                events = [(e.name, _attributes(e.attributes)) for e in s.events]
                spans.append(
                    Span(
                        s.name,
                        s.kind,
                        s.trace_id.hex(),
                        s.span_id.hex(),
                        s.parent_span_id.hex(),
                        _attributes(s.attributes),
                        resource,
                        (s.status.code, s.status.message),
                        events,
                    )
                )
    return spans


class OtlpReceiver:
    """`with OtlpReceiver() as collector:` point OTEL_EXPORTER_OTLP_ENDPOINT at `url`."""

    def __init__(self) -> None:
        self.spans: list[Span] = []
        self.exports = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                encoding = self.headers.get("Content-Encoding", "")
                if encoding == "gzip":
                    body = gzip.decompress(body)
                elif encoding == "deflate":
                    body = zlib.decompress(body)
                if self.path != "/v1/traces":
                    self.send_error(404)
                    return
                spans = decode(body)
                with receiver.lock:
                    receiver.spans += spans
                    receiver.exports += 1
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the test reads the spans, not a log."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> Self:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def taken(self) -> list[Span]:
        with self.lock:
            return list(self.spans)

    def wait_for(self, name: str, timeout: float = 10.0) -> list[Span]:
        """Every span so far, once one named `name` has come (a server flushes on its own)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            spans = self.taken()
            if any(s.name == name for s in spans):
                return spans
            time.sleep(0.05)
        raise AssertionError(f"no span {name!r}: got {[s.name for s in self.taken()]}")
