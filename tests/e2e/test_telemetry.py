"""OpenTelemetry traces of svc's paid calls, exported to a real OTLP/HTTP receiver.

With `OTEL_EXPORTER_OTLP_ENDPOINT` set, a command is a span, each HTTP request a child (method,
origin, status: never a path or query), each paid request a span with its amount and request
id; `svc mcp`'s tool calls are the MCP SDK's spans with svc's payment under them. The trace
context (`traceparent`) reaches the service and no other origin. Planted secrets (wallet key,
proof, signature, SPT, bearer, a 2FA answer, a query string) appear in no exported byte. A
collector that is down costs a bounded wait and one warning line; without the variables,
nothing of `opentelemetry` is imported.
"""

from __future__ import annotations

import base64
import contextlib
import json
import signal
import socket
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from tests.conftest import SVC, TEST_KEY, Cli, Sandbox, unique_email, unique_request_id
from tests.e2e.test_lazy_imports import imported_module_names
from tests.e2e.test_mcp import Person, run, served, task_of
from tests.ledger_reads import ledger_file, submission_row
from tests.otlp_receiver import OtlpReceiver, Span

from svc import telemetry
from svc.origin import origin_of

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("no_payment_faults")]

CLIENT = 3  # SpanKind.CLIENT in the OTLP protobuf
ERROR = 2  # Status.STATUS_CODE_ERROR


@pytest.fixture
def collector() -> Iterator[OtlpReceiver]:
    with OtlpReceiver() as receiver:
        yield receiver


def traced(collector: OtlpReceiver) -> dict[str, str]:
    return {"OTEL_EXPORTER_OTLP_ENDPOINT": collector.url}


def one(spans: list[Span], name: str) -> Span:
    found = [s for s in spans if s.name == name]
    assert len(found) == 1, [s.name for s in spans]
    return found[0]


def children(spans: list[Span], parent: Span) -> list[Span]:
    return [s for s in spans if s.parent_span_id == parent.span_id]


def assert_no_secret(spans: list[Span], secrets: dict[str, str]) -> None:
    texts = [text for s in spans for text in s.texts()]
    for what, secret in secrets.items():
        assert secret, what
        leaked = [text for text in texts if secret.lower() in text.lower()]
        assert not leaked, f"{what} in a span: {leaked}"


def x402_secrets(cli: Cli, request_id: str) -> dict[str, str]:
    """The proof svc sent for `request_id` (as its ledger keeps it) and the signature in it."""
    proof = str(submission_row(ledger_file(cli.home), request_id)["proof"])
    payload = json.loads(base64.b64decode(proof))["payload"]
    return {
        "proof": proof,
        "signature": str(payload["signature"]).removeprefix("0x"),
        "wallet key": TEST_KEY.removeprefix("0x"),
    }


def test_a_paid_submit_exports_its_command_payment_and_requests(
    process_cli: Cli, sandbox: Sandbox, collector: OtlpReceiver
) -> None:
    rid = unique_request_id()
    args = ["submit", "Traced #complete", "--email", unique_email(), "--request-id", rid]
    task = process_cli.ok(*args, env=traced(collector)).json()
    spans = collector.taken()  # the exit flushed them: nothing is waited for

    command = one(spans, "svc submit")
    assert command.parent_span_id == "" and command.attributes["process.exit.code"] == 0
    assert command.resource["service.name"] == "svc"
    payment = one(spans, "svc payment")
    assert payment.parent_span_id == command.span_id
    charge = sandbox.charges_for(rid)[0]
    assert payment.attributes == {
        "svc.request_id": rid,
        "svc.payment.rail": "x402",
        "svc.payment.amount": "1.500000",
        "svc.payment.currency": "USD",
        "svc.payment.network": "eip155:84532",
        "svc.payment.asset": payment.attributes["svc.payment.asset"],
        "svc.payment.recipient": payment.attributes["svc.payment.recipient"],
        "svc.payment.outcome": "accepted",
        "svc.task.id": task["id"],
    }
    assert charge["request_id"] == rid
    requests = children(spans, payment)
    assert [(s.name, s.kind, s.attributes["http.response.status_code"]) for s in requests] == [
        ("POST", CLIENT, 402),  # the challenge, an error to a client as the conventions say
        ("POST", CLIENT, 202),
    ]
    origin = origin_of(sandbox.url)
    for span in requests:
        assert span.attributes["svc.http.origin"] == origin
        assert not any("/" in str(v) for k, v in span.attributes.items() if k != "svc.http.origin")
    assert {s.trace_id for s in spans} == {command.trace_id}
    # Each request the service received carried the trace context of its own span.
    seen = [r for r in sandbox.admin("GET", "/requests")["requests"] if r["request_id"] == rid]
    sent = [f"00-{command.trace_id}-{s.span_id}" for s in requests]
    assert [r["traceparent"].rpartition("-")[0] for r in seen] == sent  # then the flags
    assert_no_secret(spans, x402_secrets(process_cli, rid))


def test_no_secret_reaches_any_span(
    process_cli: Cli, sandbox: Sandbox, collector: OtlpReceiver
) -> None:
    """An SPT and a bearer on an MPP payment, a 2FA code answered by `svc reply`, a goal sent
    as a query string: every exported span's name, attributes, events and status is scanned."""
    env = traced(collector)
    spt = f"spt_test_{uuid.uuid4().hex}"
    process_cli.ok("identity", "register", "--anonymous", env=env)
    store = json.loads((process_cli.home / "config" / "secrets.json").read_text())
    bearer = json.loads(store[f"identity:{sandbox.url}/auth"])
    rid = unique_request_id()
    process_cli.ok(
        *("submit", "Pay by MPP #complete", "--email", unique_email(), "--request-id", rid),
        *("--pay", "mpp"),
        env={**env, "SVC_SPT": spt},
    )
    query = f"goal-{uuid.uuid4().hex}"
    process_cli.ok("guide", query, env=env)
    ask_id = unique_request_id()
    task = process_cli.ok(
        "submit", "Log in #2fa", "--email", unique_email(), "--request-id", ask_id, env=env
    ).json()
    sandbox.advance(11)
    code = f"{uuid.uuid4().int % 10**9:09d}"
    process_cli.ok(
        "reply", task["id"], "--field", "sms_code", "--value-file", "-", input=code + "\n", env=env
    )
    spans = collector.taken()
    mpp = [s for s in spans if s.attributes.get("svc.request_id") == rid]
    assert [s.attributes["svc.payment.rail"] for s in mpp] == ["mpp"]
    assert mpp[0].attributes["svc.payment.amount"] == "1.500000"
    guide = children(spans, one(spans, "svc guide"))
    assert [(s.name, s.attributes["svc.http.origin"]) for s in guide] == [
        ("GET", origin_of(sandbox.url))
    ]
    assert {"svc reply", "svc identity register"} <= {s.name for s in spans}
    secrets = {"SPT": spt, "query string": query, "2FA code": code}
    secrets |= {f"bearer {k}": str(v) for k, v in bearer.items() if "token" in k and v}
    assert len(secrets) >= 4, bearer.keys()
    assert_no_secret(spans, secrets | x402_secrets(process_cli, ask_id))


class HeaderTap:
    """Another origin: answers 404 to anything, keeping the headers each request carried."""

    def __init__(self) -> None:
        self.headers: list[dict[str, str]] = []
        tap = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                tap.headers.append({k.lower(): v for k, v in self.headers.items()})
                self.send_error(404)

            do_POST = do_GET

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_the_trace_context_goes_to_no_other_origin(
    process_cli: Cli, collector: OtlpReceiver
) -> None:
    """An identity platform on another origin (SVC_AUTH_BASE) gets the request, traced as
    a span of svc's, but never the `traceparent` the service gets."""
    tap = HeaderTap()
    try:
        env = {**traced(collector), "SVC_AUTH_BASE": tap.url}
        refused = process_cli("identity", "register", "--anonymous", env=env)
    finally:
        tap.close()
    assert refused.returncode != 0 and tap.headers, refused.stderr
    assert not [h for h in tap.headers if "traceparent" in h or "tracestate" in h]
    spans = collector.taken()
    there = [s for s in spans if s.attributes.get("svc.http.origin") == origin_of(tap.url)]
    assert there and all(s.attributes["http.response.status_code"] == 404 for s in there)
    assert one(spans, "svc identity register").status[0] == ERROR


def test_an_mcp_tool_call_is_the_sdks_span_with_the_payment_under_it(
    cli: Cli, sandbox: Sandbox, collector: OtlpReceiver
) -> None:
    from tests.conftest import SVC

    rid = unique_request_id()
    person = Person(pay=True)

    async def body() -> None:
        async with served(cli, [SVC, "mcp"], person=person, env=traced(collector)) as (
            session,
            _,
        ):
            args = {"task": "Traced #complete", "email": unique_email(), "request_id": rid}
            task_of(await session.call_tool("submit_task", args))
            refused = await session.call_tool("get_task", {"task_id": "no such id!"})
            assert refused.is_error

    run(body)
    spans = collector.wait_for("tools/call get_task")
    tool = one(spans, "tools/call submit_task")
    assert tool.attributes["gen_ai.tool.name"] == "submit_task" and tool.parent_span_id == ""
    payment = one(spans, "svc payment")
    assert payment.parent_span_id == tool.span_id
    assert payment.attributes["svc.payment.amount"] == "1.500000"
    assert payment.attributes["svc.request_id"] == rid
    # The 402, the person asked to pay (the SDK's span of the question), the paid re-send.
    under = sorted(s.name for s in children(spans, payment))
    assert under == ["MCP send elicitation/create", "POST", "POST"]
    failed = one(spans, "tools/call get_task")
    assert failed.attributes["svc.error.code"] and failed.status[0] == ERROR
    assert not [s for s in spans if s.name.startswith("svc mcp")]  # no span for its whole life
    assert_no_secret(spans, x402_secrets(cli, rid))


def closed_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}"


@pytest.mark.parametrize("collector_down", ["refused", "silent"])
def test_a_dead_collector_costs_a_bounded_wait_and_one_line(
    process_cli: Cli, collector_down: str, collector: OtlpReceiver
) -> None:
    """A collector that refuses the connection, or takes it and never answers: the paid
    submit exits as it would, its code unchanged, with one warning line, within seconds of the
    same submit traced to a collector that answers (both load the SDK: what is left is the
    wait on the dead one, which the machine's load does not stretch)."""
    silent = socket.create_server(("127.0.0.1", 0))  # listens, never accepts: no answer comes
    endpoint = (
        closed_port()
        if collector_down == "refused"
        else (f"http://127.0.0.1:{silent.getsockname()[1]}")
    )

    def submit(env: dict[str, str]) -> tuple[float, Any]:
        args = ["submit", "Dead #complete", "--email", unique_email(), "--json"]
        started = time.monotonic()
        result = process_cli(*args, env=env)
        return time.monotonic() - started, result

    try:
        plain_time, plain = submit(traced(collector))
        traced_time, result = submit({"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint})
    finally:
        silent.close()
    assert plain.returncode == result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert warnings == [
        f"svc: warning: traces were not sent: the collector at {origin_of(endpoint)} did not "
        "take them"
    ]
    # one export's bound, twice over (the last batch and the flush), and a second's slack
    assert traced_time - plain_time < 2 * telemetry.EXPORT_SECONDS + 1.0, (traced_time, plain_time)


@pytest.mark.parametrize(
    "env",
    [
        {},
        {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9", "OTEL_SDK_DISABLED": "true"},
        {
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:9",
            "OTEL_TRACES_EXPORTER": "none",
        },
    ],
)
def test_a_paid_submit_without_the_variables_imports_no_opentelemetry(
    cli: Cli, env: dict[str, str]
) -> None:
    args = ["submit", "Untraced #complete", "--email", unique_email(), "--json"]
    loaded = imported_module_names(args, {**cli.env, **env})
    assert "svc.pay.journal" in loaded and "svc.api.http" in loaded  # it did run, and pay
    assert not [name for name in loaded if name.split(".")[0] == "opentelemetry"]


def test_an_exporter_svc_lacks_is_one_warning_and_no_traces(
    process_cli: Cli, collector: OtlpReceiver
) -> None:
    env = {**traced(collector), "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
    result = process_cli.ok("tasks", "--json", env=env)
    assert result.stderr.splitlines() == [
        "svc: warning: OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported (only http/protobuf); "
        "no traces are sent"
    ]
    assert collector.taken() == []


# --- what a hostile environment, collector or server cannot make of tracing ------------------


def test_ctrl_c_while_the_last_spans_go_keeps_the_paid_commands_exit_code(cli: Cli) -> None:
    """A paid submit is accepted, then Ctrl-C lands while svc waits on a silent collector to
    take its spans: the spans are dropped with one line, and the exit is the submit's (0)."""
    silent = socket.create_server(("127.0.0.1", 0))  # listens, never answers
    env = {**cli.env, "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{silent.getsockname()[1]}"}
    args = ["submit", "Ctrl-C at the end #complete", "--email", unique_email(), "--json"]
    proc = subprocess.Popen(
        [SVC, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        accepted = json.loads(proc.stdout.readline())  # the task: paid, now the flush
        time.sleep(0.2)  # inside the bounded export's wait (EXPORT_SECONDS)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        silent.close()
        proc.kill()
    assert accepted["id"].startswith("task_")
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert len(warnings) <= 1, err


@pytest.mark.parametrize(
    "env",
    [
        {"OTEL_EXPORTER_OTLP_HEADERS": "Authorization: Bearer sk-live-planted-123"},
        {"OTEL_BSP_SCHEDULE_DELAY": "abc"},
        {"OTEL_PYTHON_CONTEXT": "no_such_context"},
        {"OTEL_TRACES_SAMPLER": "no_such_sampler"},
        {"OTEL_RESOURCE_ATTRIBUTES": "malformed"},
        {"OTEL_PROPAGATORS": "no_such_propagator"},
    ],
    ids=lambda env: next(iter(env)),
)
def test_a_variable_the_sdk_refuses_is_at_most_one_line_of_svc(
    process_cli: Cli, collector: OtlpReceiver, env: dict[str, str]
) -> None:
    """The SDK logs a refused variable (quoting an OTLP header whole, its credential with it)
    and tracebacks: none of it reaches the terminal; svc runs and says at most one line."""
    result = process_cli("tasks", "--json", env={**traced(collector), **env})
    assert result.returncode == 0, result.stderr
    assert "sk-live-planted-123" not in result.stderr + result.stdout
    assert "Traceback" not in result.stderr, result.stderr
    assert len(result.stderr.splitlines()) <= 1, result.stderr


@pytest.mark.parametrize("variable", ["OTEL_PROPAGATORS", "OTEL_PYTHON_TRACER_PROVIDER"])
def test_svc_mcp_starts_when_a_variable_names_a_plugin_not_installed(
    cli: Cli, variable: str
) -> None:
    """The MCP SDK imports OpenTelemetry's API, which loads the plugins these name: an unknown
    one is set aside with one line, and the server answers (traces asked for or not)."""
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    proc = subprocess.run(
        [SVC, "mcp"],
        input=json.dumps(hello) + "\n",
        env={**cli.env, variable: "no_such_plugin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    answer = json.loads(proc.stdout.splitlines()[0])
    assert answer["result"]["serverInfo"]["name"], proc.stderr
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert f"{variable} named an OpenTelemetry plugin not installed here" in proc.stderr


def test_a_plain_http_collector_on_another_machine_gets_nothing(process_cli: Cli) -> None:
    """Spans and the OTLP headers (a collector's key) never go in clear to another machine:
    one line says so, the command runs as it would, and nothing is sent."""
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://192.0.2.10:4318",  # TEST-NET: nobody there
        "OTEL_EXPORTER_OTLP_HEADERS": "x-api-key=collector-key-456",
    }
    started = time.monotonic()
    result = process_cli("tasks", "--json", env=env)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        "svc: warning: the collector at http://192.0.2.10:4318 is plain http:// on another "
        "machine; no traces are sent (use https://, a collector on this machine, or "
        "SVC_ALLOW_INSECURE_HTTP=1)"
    ]
    assert time.monotonic() - started < 20  # no connection was even tried


def test_the_collector_is_reached_directly_never_through_a_proxy(
    process_cli: Cli, collector: OtlpReceiver
) -> None:
    """A proxy from the environment would see the collector's key: the exporter goes direct."""
    seen: list[str] = []
    proxy = socket.create_server(("127.0.0.1", 0))

    def record() -> None:
        with contextlib.suppress(OSError):
            conn, _ = proxy.accept()
            seen.append(conn.recv(4096).decode("latin-1"))
            conn.close()

    threading.Thread(target=record, daemon=True).start()
    url = f"http://127.0.0.1:{proxy.getsockname()[1]}"
    env = {
        **traced(collector),
        "OTEL_EXPORTER_OTLP_HEADERS": "x-api-key=collector-key-789",
        "HTTP_PROXY": url,
        "http_proxy": url,
        "NO_PROXY": "",
        "no_proxy": "",
    }
    try:
        result = process_cli("tasks", "--json", env=env)
    finally:
        proxy.close()
    assert result.returncode == 0, result.stderr
    assert collector.taken(), "the spans reach the collector directly"
    assert not [s for s in seen if "/v1/traces" in s or "collector-key" in s], seen


def test_a_servers_error_code_is_a_span_attribute_only_in_a_codes_shape() -> None:
    """A hostile service answers a paid request with the proof it was sent as its `error`:
    a code that is not an identifier is "unrecognized" on every span."""
    proof = base64.b64encode(b'{"signature": "0x' + b"ab" * 65 + b'"}').decode()
    assert telemetry.code(proof) == "unrecognized"
    assert telemetry.code("Bearer eyJhbGciOi.planted") == "unrecognized"
    assert telemetry.code("insufficient_funds") == "insufficient_funds"
    assert telemetry.code("402") == "402"
    assert telemetry.code("ValueError") == "ValueError"
