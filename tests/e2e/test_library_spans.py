"""svc as a traced program's library: each `Client` call is a span of the program's own trace
(its tracer provider, its exporter), the call's requests and payment its children, under the
rules of what a span carries; a program that does not trace loads nothing of OpenTelemetry."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest
from tests.conftest import TEST_KEY, Cli, Sandbox, unique_email

pytestmark = pytest.mark.e2e

TRACED_PROGRAM = """
import json, sys
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)

import svc
with trace.get_tracer("program").start_as_current_span("the program's work"):
    with svc.Client() as client:
        task = client.submit(sys.argv[1], sys.argv[2])
        client.get(task.id)
        try:
            client.get("task_does_not_exist")
        except svc.SvcError:
            pass
print(json.dumps([
    {
        "name": s.name,
        "id": s.context.span_id,
        "parent": s.parent.span_id if s.parent else None,
        "attributes": dict(s.attributes or {}),
        "status": s.status.status_code.name,
    }
    for s in exporter.get_finished_spans()
]))
"""

PLAIN_PROGRAM = """
import sys, svc
with svc.Client() as client:
    client.get(client.submit(sys.argv[1], sys.argv[2]).id)
print(sorted(m for m in sys.modules if m.startswith("opentelemetry")))
"""


def _run(cli: Cli, program: str, *args: str) -> str:
    env = {k: v for k, v in cli.env.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [sys.executable, "-c", program, *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def _children(spans: list[dict[str, Any]], parent: dict[str, Any]) -> list[str]:
    return [s["name"] for s in spans if s["parent"] == parent["id"]]


def test_each_call_is_a_span_of_the_programs_trace(cli: Cli, sandbox: Sandbox) -> None:
    task_text, email = "Renew the books, note 7f3c91 #complete", unique_email()
    spans = json.loads(_run(cli, TRACED_PROGRAM, task_text, email))
    named = {s["name"]: s for s in spans}
    program = named["the program's work"]
    calls = [s for s in spans if s["name"].startswith("svc.Client.")]
    assert [s["name"] for s in calls] == [
        "svc.Client.submit",
        "svc.Client.get",
        "svc.Client.get",
    ]
    assert all(s["parent"] == program["id"] for s in calls)  # in the program's own trace
    submit, got, missing = calls
    assert _children(spans, submit) == ["svc payment"]  # the paid request, then its sends:
    assert _children(spans, named["svc payment"]) == ["POST", "POST"]  # the 402, the paid one
    assert _children(spans, got) == ["GET"] and got["status"] != "ERROR"
    assert missing["status"] == "ERROR" and missing["attributes"]["error.type"]
    everything = json.dumps(spans)
    for secret in (task_text, "7f3c91", email, TEST_KEY, TEST_KEY[2:]):
        assert secret not in everything  # no task text, e-mail or key in any span


def test_a_program_that_does_not_trace_loads_no_opentelemetry(cli: Cli, sandbox: Sandbox) -> None:
    loaded = _run(cli, PLAIN_PROGRAM, "Book it #complete", unique_email()).strip()
    assert loaded == "[]"
