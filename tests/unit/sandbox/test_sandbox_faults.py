"""Injected faults, seen by a real HTTP client over a real socket."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, get_args

import httpx
import pytest
from eth_account import Account
from fastapi.testclient import TestClient
from sandbox_proofs import BODY, sign_proof

from svc_sandbox.faults.middleware import FAULT_HANDLERS, ConnectionDropped
from svc_sandbox.faults.queue import FaultKind
from svc_sandbox.server import SandboxThread
from svc_sandbox.state.sandbox import SandboxState


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxThread]:
    with SandboxThread() as running:
        yield running


def test_every_fault_kind_the_controls_accept_has_a_handler() -> None:
    assert sorted(get_args(FaultKind)) == sorted(FAULT_HANDLERS)


@pytest.fixture
def http(sandbox: SandboxThread) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=sandbox.url, timeout=10) as client:
        client.post("/_sandbox/reset")
        yield client


def inject(http: httpx.Client, **fault: Any) -> None:
    response = http.post("/_sandbox/faults", json={"faults": [fault]})
    assert response.status_code == 200, response.text


def paid_submit(http: httpx.Client, request_id: str) -> httpx.Response:
    headers = {"x-payment": sign_proof(Account.create()), "svc-request-id": request_id}
    return http.post("/svc/tasks", json=BODY, headers=headers)


def test_status_429_carries_retry_after(http: httpx.Client) -> None:
    inject(http, kind="status", status=429, retry_after=7, path="/svc/tasks")
    response = http.get("/svc/tasks/anything")
    assert response.status_code == 429
    assert response.headers["Retry-After"] == "7"
    assert response.json() == {"error": "rate_limit_exceeded", "retry_after": 7}
    assert http.get("/svc/tasks/anything").status_code == 404  # consumed


def test_status_5xx_count_and_method_filter(http: httpx.Client) -> None:
    inject(http, kind="status", status=503, method="GET", count=2)
    assert http.post("/svc/tasks", json=BODY).status_code == 402  # POST does not match
    assert http.get("/svc/tasks/x").json() == {"error": "internal_error"}
    assert http.get("/svc/tasks/x").status_code == 503
    assert http.get("/svc/tasks/x").status_code == 404
    assert http.get("/_sandbox/faults").json() == {"faults": []}


def test_controls_are_never_faulted(http: httpx.Client) -> None:
    inject(http, kind="status", status=500)
    assert http.get("/_sandbox/books").status_code == 200
    assert http.delete("/_sandbox/faults").json() == {"faults": []}
    assert http.get("/svc/tasks/x").status_code == 404


def test_delay(http: httpx.Client) -> None:
    inject(http, kind="delay", seconds=0.3)
    started = time.monotonic()
    assert http.get("/svc/tasks/x").status_code == 404
    assert time.monotonic() - started >= 0.3


def test_drop_before_is_a_transport_error_and_nothing_happens(
    http: httpx.Client, sandbox: SandboxThread
) -> None:
    inject(http, kind="drop_before", path="/svc/tasks", method="POST")
    # A dropped connection reads as a closed stream or a reset, depending on timing.
    with pytest.raises((httpx.RemoteProtocolError, httpx.ReadError)):
        paid_submit(http, "req-drop-before")
    assert http.get("/_sandbox/books").json()["charges"] == []
    assert sandbox.state.find_request("req-drop-before") is None


def test_drop_after_commits_the_paid_submit(http: httpx.Client) -> None:
    inject(http, kind="drop_after", path="/svc/tasks", method="POST")
    headers = {"x-payment": sign_proof(Account.create()), "svc-request-id": "req-drop-after"}
    with pytest.raises(httpx.RemoteProtocolError):
        http.post("/svc/tasks", json=BODY, headers=headers)
    (charge,) = http.get("/_sandbox/books").json()["charges"]
    assert charge["request_id"] == "req-drop-after"
    # reconciling with the same request id and proof finds the task; no second charge
    again = http.post("/svc/tasks", json=BODY, headers=headers)
    assert again.status_code == 202
    assert again.json()["id"] == charge["task_id"]
    assert again.headers["svc-billing"].startswith("status=replayed")
    assert len(http.get("/_sandbox/books").json()["charges"]) == 1


def test_malformed_json(http: httpx.Client) -> None:
    inject(http, kind="malformed_json")
    response = http.get("/svc/tasks/x")
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.content == b'{"id": '
    with pytest.raises(ValueError):
        response.json()


def test_truncate_processes_and_cuts_the_body(http: httpx.Client) -> None:
    inject(http, kind="truncate", path="/svc/tasks", method="POST")
    response = paid_submit(http, "req-truncated")
    assert response.status_code == 202
    with pytest.raises(ValueError):
        response.json()
    assert response.content.startswith(b'{"id":"task_')
    assert len(http.get("/_sandbox/books").json()["charges"]) == 1


def test_wrong_content_type(http: httpx.Client) -> None:
    inject(http, kind="wrong_content_type")
    response = http.get("/svc/tasks/x")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert b"<html>" in response.content


def test_unknown_fault_kind_is_rejected(http: httpx.Client) -> None:
    response = http.post("/_sandbox/faults", json={"faults": [{"kind": "explode"}]})
    assert response.status_code == 422


def test_drops_raise_under_testclient_where_no_socket_exists() -> None:
    state = SandboxState()
    from svc_sandbox.app import create_app

    with TestClient(create_app(state)) as client:
        client.post("/_sandbox/faults", json={"faults": [{"kind": "drop_before"}]})
        with pytest.raises(ConnectionDropped):
            client.get("/svc/tasks/x")


def test_a_code_fault_answers_the_code_with_its_status(http: httpx.Client) -> None:
    inject(http, kind="code", code="invalid_token", reason="token_expired", path="/svc/tasks")
    response = http.get("/svc/tasks/anything")
    assert response.status_code == 401
    assert response.json() == {
        "error": "invalid_token",
        "detail": "sandbox fault: invalid_token",
        "reason": "token_expired",
    }
    assert response.headers["WWW-Authenticate"] == 'Bearer error="invalid_token"'
    inject(http, kind="code", code="entitlements_not_available", path="/auth/agent/entitlements")
    assert http.get("/auth/agent/entitlements").status_code == 501
    assert http.get("/auth/agent/entitlements").json()["error"] == "bearer_required"  # consumed


@pytest.mark.parametrize(
    "fault",
    [
        {"kind": "code"},  # which code?
        {"kind": "status", "status": 404, "code": "plan_not_found"},  # a code is kind "code"
        {"kind": "code", "code": "no_such_code"},
        {"kind": "code", "code": "plan_not_found", "reason": "Not A Reason"},
    ],
)
def test_a_code_fault_needs_one_of_the_codes(http: httpx.Client, fault: dict[str, Any]) -> None:
    assert http.post("/_sandbox/faults", json={"faults": [fault]}).status_code == 422


def test_every_code_of_the_spec_tables_can_be_served() -> None:
    """Each code of "Payment and access codes" and "Identity flow codes" is one a payment
    fault or a code fault answers (besides any real flow that reaches it)."""
    from tests.fidelity import SPEC, spec_rows

    from svc_sandbox.faults.queue import CODE_STATUS, FAULT_STATUS

    codes = {
        row.key.split(": ")[-1].split(" ")[0]
        for row in spec_rows(SPEC.read_text(encoding="utf-8"))
        if row.kind == "code" and not row.key.startswith("402 ")
    }
    assert len(codes) > 40  # the tables were read
    assert codes - set(CODE_STATUS) - set(FAULT_STATUS) == set()
