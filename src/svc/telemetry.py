"""Traces of what svc does, for a person's OpenTelemetry collector: off unless asked for.

The standard variables ask: `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`
set, `OTEL_SDK_DISABLED` not `true` and `OTEL_TRACES_EXPORTER` not `none`. Then, and only then,
OpenTelemetry's SDK is imported and spans go out over OTLP/HTTP: one per command (cli/app.py),
per MCP tool call (the MCP SDK's own span, which svc annotates), per HTTP request (api/traced.py)
and per paid request (pay/journal.py). Otherwise nothing of `opentelemetry` is imported by
svc, and each call here costs a truth test.

What a span carries is chosen here, field by field: names svc made, ids, amounts, origins,
status and error codes. Never a header, a body, a path or query string, a proof, a signature,
a bearer, an SPT, a wallet key or an answer; and every text value passes the vaults of what
svc was told in secret (svc.redact) on its way in, a last defence. No exception's message is
recorded either: one may quote a URL with its query, or the server's words.

A short process must neither lose its spans nor wait on a dead collector: the batch is
flushed when the command ends, and each export gets `EXPORT_SECONDS` in all, retries included.
"""

from __future__ import annotations

import contextvars
import os
import re
import sys
from collections.abc import Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from typing import Any

from svc import redact
from svc.money import atomic_to_usd
from svc.origin import is_cleartext, origin_of
from svc.version import __version__

ENDPOINT = "OTEL_EXPORTER_OTLP_ENDPOINT"
TRACES_ENDPOINT = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
SERVICE_NAME = "svc"  # when OTEL_SERVICE_NAME (or OTEL_RESOURCE_ATTRIBUTES) names none
# One export's whole time, retries included: the exit of a command waits for its last batch,
# and a collector that is down must not hold a person's shell (the SDK's default is 10 s).
EXPORT_SECONDS = 1.5
MAX_VALUE = 256  # characters of a text attribute (a server's code or network is its words)
INSTALL = "pip install opentelemetry-sdk opentelemetry-exporter-otlp-proto-http"

Attributes = Mapping[str, object]
CODE = re.compile(r"[A-Za-z][A-Za-z0-9_.:-]{0,63}|[1-5][0-9][0-9]")


class Traced:
    """A span svc opened, or none (`OFF`): attributes go in through `set`, each cleaned."""

    __slots__ = ("span",)

    def __init__(self, span: Any) -> None:
        self.span = span

    def set(self, attributes: Attributes) -> None:
        if self.span is not None:
            self.span.set_attributes(_cleaned(attributes))

    def failed(self, error_type: str) -> None:
        """The span's work failed: `error_type` is svc's code or a class name, never a message."""
        if self.span is not None:
            from opentelemetry.trace import Status, StatusCode

            kind = code(error_type)
            self.span.set_attribute("error.type", kind)
            self.span.set_status(Status(StatusCode.ERROR, kind))


OFF = Traced(None)


class _State:
    """The process's tracing, once started: the tracer, the batch and the exports' trouble."""

    def __init__(self) -> None:
        self.tracer: Any = None
        self.processor: Any = None
        self.collector = ""  # the collector's origin, for the one warning line
        self.lost = 0  # exports that failed (a collector down, refused, too slow)
        self.told = False  # the warning was given (once a process)
        self.vaults: list[redact.Vault] = [redact.PROCESS]


_STATE = _State()
# The request id of the paid request whose span is open here: a nested hold of the same
# request (`svc pay card` finishes the card, then submits) adds to it instead of a second span.
_PAYING: contextvars.ContextVar[tuple[str, Traced] | None] = contextvars.ContextVar(
    "svc_paying_span", default=None
)


def asked(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether the standard variables ask for traces (not whether svc can send them)."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    if "none" in _exporters(environ):
        return False
    return bool(environ.get(TRACES_ENDPOINT) or environ.get(ENDPOINT))


# The variables that name an OpenTelemetry plugin, and the entry-point group it is found in:
# the API loads them as it is imported (the MCP SDK imports it, traced or not), and a name
# this install lacks stops that import (`svc mcp` would not start).
PLUGINS = {
    "OTEL_PROPAGATORS": "opentelemetry_propagator",
    "OTEL_PYTHON_CONTEXT": "opentelemetry_context",
    "OTEL_PYTHON_TRACER_PROVIDER": "opentelemetry_tracer_provider",
}


def set_aside_unknown_plugins(environ: MutableMapping[str, str] = os.environ) -> str | None:
    """Remove from `environ` each plugin variable naming a plugin not installed here (the
    API's defaults then hold); a warning line naming them, else None."""
    unknown = [name for name in PLUGINS if environ.get(name) and not _installed(name, environ)]
    for name in unknown:
        del environ[name]
    if not unknown:
        return None
    return f"{', '.join(unknown)} named an OpenTelemetry plugin not installed here: set aside"


def _installed(name: str, environ: Mapping[str, str]) -> bool:
    from importlib.metadata import entry_points

    known = {point.name for point in entry_points(group=PLUGINS[name])} | {"none"}
    wanted = {part.strip().lower() for part in environ[name].split(",") if part.strip()}
    return wanted <= known


def on() -> bool:
    """Spans are being made and sent (after `start`)."""
    return _STATE.tracer is not None


def for_a_host() -> None:
    """Trace through the program's own tracer provider, when svc is its library and it traces
    (it has imported OpenTelemetry's API): the program owns the SDK, its exporter and its
    sampling, and svc adds spans to its traces, under the same rules of what a span carries.
    A program that does not trace loads nothing of OpenTelemetry for svc."""
    if on() or "opentelemetry.trace" not in sys.modules:
        return
    from opentelemetry import trace

    _STATE.tracer = trace.get_tracer(SERVICE_NAME, __version__)


def keep_out(vault: redact.Vault) -> None:
    """Another vault whose secrets no attribute may carry (`svc mcp` keeps one a server);
    kept only while tracing is on (nothing else reads them)."""
    if on() and vault not in _STATE.vaults:
        _STATE.vaults.append(vault)


def start(environ: Mapping[str, str] = os.environ) -> str | None:
    """Start tracing if the variables ask for it (once a process); a warning line when they
    ask for what svc cannot do (the SDK missing, another exporter or protocol), else None."""
    if on() or not asked(environ):
        return None
    aside = set_aside_unknown_plugins(environ) if isinstance(environ, MutableMapping) else None
    why = _unsupported(environ)
    if why is not None:
        return _warn_once(why)
    try:
        _build(environ)
    except ImportError:
        return _warn_once(
            f"the OTEL_ variables ask for traces, but OpenTelemetry is not installed: {INSTALL}"
        )
    except Exception as error:  # a variable the SDK refuses: the command runs all the same
        return _warn_once(
            f"no traces are sent: OpenTelemetry did not start ({type(error).__name__})"
        )
    return _warn_once(aside) if aside else None


def _exporters(environ: Mapping[str, str]) -> set[str]:
    raw = environ.get("OTEL_TRACES_EXPORTER") or "otlp"
    return {name.strip().lower() for name in raw.split(",") if name.strip()}


def _unsupported(environ: Mapping[str, str]) -> str | None:
    """What svc cannot send as asked: it ships OTLP over HTTP (protobuf), nothing else, and
    never in clear to another machine (the OTLP headers may carry the collector's key)."""
    endpoint = environ.get(TRACES_ENDPOINT) or environ.get(ENDPOINT) or ""
    if is_cleartext(endpoint) and not _insecure_allowed(environ):
        return (
            f"the collector at {origin_of(endpoint)} is plain http:// on another machine; no "
            "traces are sent (use https://, a collector on this machine, or "
            "SVC_ALLOW_INSECURE_HTTP=1)"
        )
    if "otlp" not in _exporters(environ):
        return "OTEL_TRACES_EXPORTER names no exporter svc has (only otlp); no traces are sent"
    for name in ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"):
        protocol = environ.get(name, "").strip().lower()
        if protocol:  # the traces' own setting, else the general one
            if protocol == "http/protobuf":
                return None
            return (
                f"{name}={protocol[:20]} is not supported (only http/protobuf); no traces are sent"
            )
    return None


def _insecure_allowed(environ: Mapping[str, str]) -> bool:
    """SVC_ALLOW_INSECURE_HTTP said yes (tracing starts before the config file is read)."""
    return environ.get("SVC_ALLOW_INSECURE_HTTP", "").strip().lower() in ("1", "true", "yes")


def _warn_once(line: str) -> str | None:
    if _STATE.told:
        return None
    _STATE.told = True
    return line


def _build(environ: Mapping[str, str]) -> None:
    """The SDK's tracer provider, exporting in batches over OTLP/HTTP; global, so the MCP
    SDK's spans of `svc mcp` go the same way. Its exit hook is off: `finish` flushes."""
    _quiet_sdk()
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    processor = BatchSpanProcessor(_exporter())
    provider = TracerProvider(resource=_resource(__version__), shutdown_on_exit=False)
    provider.add_span_processor(processor)
    trace.set_tracer_provider(provider)
    endpoint = environ.get(TRACES_ENDPOINT) or environ.get(ENDPOINT) or ""
    _STATE.collector = origin_of(endpoint)
    _STATE.processor = processor
    _STATE.tracer = provider.get_tracer("svc", __version__)


def _quiet_sdk() -> None:
    """The SDK's own log lines kept off the person's terminal, before any of it loads: it logs
    a failed export, a refused variable (quoting an OTLP header whole, a credential with it)
    and tracebacks; svc says what went wrong once, in its own words."""
    import logging

    quiet = logging.getLogger("opentelemetry")
    if not quiet.propagate:
        return
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False


def _resource(version: str) -> Any:
    """svc's name and version; a name the person gave (OTEL_SERVICE_NAME, or service.name in
    OTEL_RESOURCE_ATTRIBUTES, which the SDK reads) wins over "svc"."""
    from opentelemetry.sdk.resources import Resource

    resource = Resource.create({"service.version": version})
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": SERVICE_NAME}))
    return resource


def _exporter() -> Any:
    """OTLP/HTTP to the endpoint the variables name, within EXPORT_SECONDS an export, counting
    the batches it could not send (for the one warning at the end)."""
    from collections.abc import Sequence

    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import ReadableSpan
    from opentelemetry.sdk.trace.export import SpanExportResult

    class Counted(OTLPSpanExporter):
        def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
            result = super().export(spans)
            if result is not SpanExportResult.SUCCESS:
                _STATE.lost += 1
            return result

    import requests

    session = requests.Session()
    # Directly: a proxy from the environment (HTTP_PROXY) would see the collector's key.
    session.trust_env = False
    return Counted(timeout=EXPORT_SECONDS, session=session)


def finish() -> str | None:
    """Send what is left (within EXPORT_SECONDS an export); a warning line if any batch of
    this process could not be sent, once. The provider stays: a host may run more commands."""
    if _STATE.processor is None:  # off, or a program's provider: the program flushes it
        return None
    if not _STATE.lost:  # a collector that failed a batch of this run is not waited on again
        _STATE.processor.force_flush()
    if not _STATE.lost:
        return None
    return _warn_once(
        f"traces were not sent: the collector at {_STATE.collector} did not take them"
    )


# --- spans ---------------------------------------------------------------------------------


@contextmanager
def span(
    name: str, attributes: Attributes | None = None, *, client: bool = False
) -> Iterator[Traced]:
    """A span around the block, current inside it; what the block raises marks it failed by
    svc's error code or the exception's class (never its message) and goes on."""
    tracer = _STATE.tracer
    if tracer is None:
        yield OFF
        return
    from opentelemetry.trace import SpanKind

    kind = SpanKind.CLIENT if client else SpanKind.INTERNAL
    with tracer.start_as_current_span(
        name,
        kind=kind,
        attributes=_cleaned(attributes or {}),
        record_exception=False,  # its message may quote a URL's query or the server's words
        set_status_on_exception=False,
    ) as opened:
        traced = Traced(opened)
        try:
            yield traced
        except GeneratorExit:
            raise
        except BaseException as error:
            _ended_by(traced, error)
            raise


def _ended_by(traced: Traced, error: BaseException) -> None:
    """An exception ends the span: failed, but for an exit with code 0 (typer's Exit)."""
    if getattr(error, "exit_code", None) == 0:
        return
    kind = getattr(error, "code", None)
    traced.failed(kind if isinstance(kind, str) else type(error).__name__)


@contextmanager
def command(path: list[str], *, server: bool = False) -> Iterator[Traced]:
    """The span of one command (`svc submit`): named by its path, never its arguments, with
    its exit code. A server (`svc mcp`) has none: its tool calls are its spans, not children
    of one that lasts its whole life."""
    if server or not on():
        yield OFF
        return
    name = " ".join(["svc", *path])
    with span(name, {"svc.command": " ".join(path)}) as traced:
        try:
            yield traced
        except (Exception, KeyboardInterrupt) as error:  # typer's Exit, svc's errors, Ctrl-C
            code = 130 if isinstance(error, KeyboardInterrupt) else getattr(error, "exit_code", 1)
            traced.set({"process.exit.code": code if isinstance(code, int) else 1})
            raise


@contextmanager
def http_request(method: str, origin: str) -> Iterator[Traced]:
    """A request on the wire: its method and origin (no path, no query), then its status."""
    scheme, _, host_port = origin.partition("://")
    host, _, port = host_port.rpartition(":")
    attributes = {
        "http.request.method": method,
        "url.scheme": scheme,
        "server.address": host.strip("[]"),
        "server.port": int(port) if port.isdigit() else 0,
        "svc.http.origin": origin,
    }
    with span(method, attributes, client=True) as traced:
        yield traced


def propagate(headers: Any) -> None:
    """`traceparent` (and `tracestate`) of the current span into `headers`: W3C trace context
    only, never the baggage another propagator would add. The caller sends it only to the
    service it was configured with (api/traced.py)."""
    if not on():
        return
    from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

    carrier: dict[str, str] = {}
    TraceContextTextMapPropagator().inject(carrier)
    for key, value in carrier.items():
        headers[key] = value


@contextmanager
def payment(request_id: str) -> Iterator[Traced]:
    """The span of one paid request, from its journal's hold to its release; a hold of the
    same request inside it (`svc pay card`) adds to that one."""
    paying = _PAYING.get()
    if paying is not None and paying[0] == request_id:
        yield paying[1]
        return
    with span("svc payment", {"svc.request_id": request_id}) as traced:
        token = _PAYING.set((request_id, traced))
        try:
            yield traced
        finally:
            _PAYING.reset(token)


def terms(rail: str | None, amount_atomic: int | None, **where: str | None) -> dict[str, object]:
    """A payment's terms as attributes: the amount as the exact decimal USD string ("1.500000"),
    and `where` it goes (network, asset, recipient), as the rail read them."""
    attributes: dict[str, object] = {"svc.payment.rail": rail}
    if amount_atomic is not None:
        attributes["svc.payment.amount"] = f"{atomic_to_usd(amount_atomic):f}"
        attributes["svc.payment.currency"] = "USD"
    attributes.update({f"svc.payment.{key}": value for key, value in where.items()})
    return attributes


def annotate(attributes: Attributes) -> None:
    """Attributes on the current span (the MCP SDK's span of a tool call)."""
    if not on():
        return
    from opentelemetry import trace

    current = trace.get_current_span()
    if current.is_recording():
        current.set_attributes(_cleaned(attributes))


def _cleaned(attributes: Attributes) -> dict[str, Any]:
    """Each value a type OpenTelemetry takes, bounded, and scrubbed of every told secret; a
    code only in a code's shape."""
    return {
        key: code(value) if key.endswith(".code") and isinstance(value, str) else _value(value)
        for key, value in attributes.items()
        if value is not None
    }


def code(value: str) -> str:
    """An error code as a span may carry it: a short identifier (svc's codes, the spec's, an
    HTTP status, an exception's class), else "unrecognized". A server's `error` member is its
    own text, and a hostile one may quote the proof or bearer it was just sent."""
    text = str(_value(value))  # scrubbed first: a told secret inside is no code either
    return text if CODE.fullmatch(text) else "unrecognized"


def _value(value: object) -> str | int | float | bool:
    if isinstance(value, bool):
        return value
    for vault in _STATE.vaults:
        value = vault.scrub(value)  # a code folded back as a number is the code all the same
    if isinstance(value, int):
        return int(value)  # an exit code's enum as the number
    if isinstance(value, float):
        return value
    return str(value)[:MAX_VALUE]
