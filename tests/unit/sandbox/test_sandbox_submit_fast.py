"""The submit fast path (`routes.submit_fast`) answers exactly what FastAPI's route answers.

Two apps with states of their own get the same requests in the same order: one as built, one
with the fast path taken out (every submit through FastAPI's route). Status, headers and body
must match once the values drawn at random (ids, HMACs, nonces, times) are masked; and the fast
path must really have taken the submits it is for, paid ones in a worker thread.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from eth_account import Account
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sandbox_proofs import BODY, sign_proof

from svc_sandbox.app import create_app
from svc_sandbox.routes import submit_fast
from svc_sandbox.routes.submit_fast import SubmitFastPath
from svc_sandbox.state.sandbox import SandboxState

JSON = "application/json"
_IDS = re.compile(r"\b([a-z]+)_[0-9a-f]{16}\b")
_TIMES = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z")
_DRAWN = re.compile(r'\b(id|expires|opaque)="[^"]*"')


def _without_fast_path(app: FastAPI) -> FastAPI:
    app.user_middleware = [m for m in app.user_middleware if m.cls is not SubmitFastPath]
    return app


def _masked(text: str) -> str:
    return _DRAWN.sub(r'\1="*"', _TIMES.sub("<t>", _IDS.sub(r"\1_*", text)))


def _answer(response: Any) -> tuple[int, dict[str, str], Any]:
    headers = {k: _masked(v) for k, v in response.headers.items() if k != "content-length"}
    try:
        body: Any = json.loads(_masked(response.text))
    except ValueError:
        body = _masked(response.text)
    return response.status_code, headers, body


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Where each submit the fast path ran went: "loop" or "thread"."""
    seen: list[str] = []
    real = submit_fast.submit_answer

    def spy(*args: Any) -> Any:
        try:
            asyncio.get_running_loop()
            seen.append("loop")
        except RuntimeError:
            seen.append("thread")
        return real(*args)

    monkeypatch.setattr(submit_fast, "submit_answer", spy)
    return seen


@pytest.fixture
def both() -> Iterator[Callable[..., tuple[Any, Any]]]:
    with (
        TestClient(create_app(SandboxState())) as fast,
        TestClient(_without_fast_path(create_app(SandboxState()))) as slow,
    ):

        def send(method: str, path: str, **kwargs: Any) -> tuple[Any, Any]:
            return (
                _answer(fast.request(method, path, **kwargs)),
                _answer(slow.request(method, path, **kwargs)),
            )

        yield send


def _submit(send: Callable[..., tuple[Any, Any]], body: Any, **headers: str) -> Any:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers.setdefault("content-type", JSON)
    fast, slow = send("POST", "/svc/tasks", content=raw, headers=headers)
    assert fast == slow
    return fast


def test_paid_submits_answer_as_the_route_does(
    both: Callable[..., tuple[Any, Any]], runs: list[str]
) -> None:
    payer, other = Account.create(), Account.create()
    first = _submit(both, BODY, **{"svc-request-id": "r1"})
    assert first[0] == 402 and "www-authenticate" in first[1]
    proof = sign_proof(payer)
    assert _submit(both, BODY, **{"svc-request-id": "r1", "x-payment": proof})[0] == 202
    replay = _submit(both, BODY, **{"svc-request-id": "r1", "x-payment": proof})
    assert "status=replayed" in replay[1]["svc-billing"]
    mismatch = _submit(both, BODY, **{"svc-request-id": "r1", "x-payment": sign_proof(other)})
    assert mismatch[0] == 409
    assert _submit(both, BODY, **{"x-payment": sign_proof(payer, valid_before=1)})[0] == 402
    assert _submit(both, BODY, **{"x-payment": sign_proof(payer, value=1)})[0] == 402
    assert _submit(both, BODY, **{"x-payment": "not base64"})[0] == 400
    forged = sign_proof(payer, tamper=lambda p: p["payload"]["authorization"].update(value="2"))
    assert _submit(both, BODY, **{"x-payment": forged})[0] == 401
    misplaced = _submit(both, BODY, **{"payment-signature": sign_proof(payer)})
    assert misplaced[0] == 402 and "x-payment header" in misplaced[2]["detail"]
    bad_email = {"task": "t", "email": "not-an-address"}
    assert _submit(both, bad_email, **{"x-payment": sign_proof(payer)})[0] == 400
    assert runs == ["loop", *["thread"] * 7, "loop", "thread"]


def test_faults_and_settings_answer_as_the_route_does(
    both: Callable[..., tuple[Any, Any]], runs: list[str]
) -> None:
    payer = Account.create()
    for code in ("payment_failed", "usage_error", "rate_limit_exceeded"):
        assert both("POST", "/_sandbox/payment-faults", json={"faults": [{"code": code}]})[0][0]
        _submit(both, BODY, **{"x-payment": sign_proof(payer)})
    fault = {"kind": "status", "status": 503, "retry_after": 7}
    both("POST", "/_sandbox/faults", json={"faults": [fault]})
    assert _submit(both, BODY)[0] == 503  # the fault middleware answers before any route
    both("POST", "/_sandbox/faults", json={"faults": [{"kind": "repeat_402"}]})
    assert _submit(both, BODY, **{"x-payment": sign_proof(payer)})[0] == 402
    both("POST", "/_sandbox/config", json={"require_bearer": True})
    assert _submit(both, BODY)[0] == 401
    both("POST", "/_sandbox/config", json={"require_bearer": False, "x402_version": 1})
    assert "accepts" in _submit(both, BODY)[2]
    assert runs == ["thread", "thread", "thread", "loop", "loop", "loop"]


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        (b'{"task": "t", "email": "a@example.com"', JSON),  # cut JSON
        (b"[1, 2]", JSON),
        (b"", JSON),
        (b"\xff\xfe{}", JSON),  # not UTF-8
        (json.dumps({**BODY, "emial": "typo@example.com"}).encode(), JSON),
        (json.dumps({"task": "", "email": BODY["email"]}).encode(), JSON),
        (json.dumps({"task": 7, "email": BODY["email"]}).encode(), JSON),
        (json.dumps(BODY).encode(), "text/plain"),
        (json.dumps(BODY).encode(), "application/json; charset=utf-8"),
        (json.dumps(BODY).encode(), "application/vnd.api+json"),
        (b'{"a":' * 100_000 + b"1" + b"}" * 100_000, JSON),  # past json's recursion limit
    ],
)
def test_any_other_body_goes_to_the_route_for_its_words(
    both: Callable[..., tuple[Any, Any]], runs: list[str], body: bytes, content_type: str
) -> None:
    _submit(both, body, **{"content-type": content_type})
    assert runs == []


def test_a_submit_without_content_type_goes_to_the_route(
    both: Callable[..., tuple[Any, Any]], runs: list[str]
) -> None:
    fast, slow = both("POST", "/svc/tasks", content=json.dumps(BODY).encode())
    assert fast == slow and fast[0] == 422
    assert runs == []


def test_a_paid_fast_submit_is_billed_once_under_concurrency() -> None:
    """Concurrent paid submits of one request id still settle once (the settle lock, reached
    from the thread pool as from the route)."""
    state = SandboxState()
    payer = Account.create()
    proofs = [sign_proof(payer) for _ in range(8)]
    with TestClient(create_app(state)) as client:

        def pay(proof: str) -> int:
            headers = {"svc-request-id": "one-id", "x-payment": proof}
            return client.post("/svc/tasks", json=BODY, headers=headers).status_code

        with ThreadPoolExecutor(8) as pool:
            statuses = list(pool.map(pay, proofs))
    assert statuses == [202] * 8
    assert len(state.books()["charges"]) == 1
