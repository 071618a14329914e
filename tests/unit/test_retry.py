"""The retry decisions (api/retry.py): which answers are final, which failures may be sent again,
how long to wait, and what is said when every attempt failed; then the one loop that asks them
(`Http.send`), against answers the tests choose."""

from __future__ import annotations

import random

import httpx
import pytest
from pytest_httpx import HTTPXMock

from svc.api.headers import BILLING
from svc.api.http import Http
from svc.api.retry import (
    MAX_RETRY_AFTER,
    RetryPolicy,
    exhausted,
    is_final,
    retry_after_seconds,
    transport_problem,
    waits_too_long,
)
from svc.errors import ExitCode, Unavailable
from svc.origin import TrustedURL, configured

REMOTE = "https://svc.test:8443/svc/tasks/abc"
LOOPBACK = "http://127.0.0.1:8402/svc/tasks/abc"


def answer(status: int, headers: dict[str, str] | None = None, body: bytes = b"") -> httpx.Response:
    return httpx.Response(status, headers=headers, content=body)


def url(text: str) -> TrustedURL:
    return configured(text, "the test URL")


# --- which answers are final -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "resend_safe", "final"),
    [
        (200, True, True),
        (201, False, True),
        (402, True, True),  # the auth flow's business, never a retry
        (404, True, True),
        (409, False, True),
        (429, True, False),
        (429, False, False),  # a 429 says the request was not processed: safe to send again
        (503, False, False),  # so does a 503
        (500, True, False),
        (502, True, False),
        (500, False, True),  # a mutation's 500 may have been applied: never sent twice
        (502, False, True),
        (504, False, True),
    ],
)
def test_which_answers_are_final(status: int, resend_safe: bool, final: bool) -> None:
    assert is_final(answer(status), resend_safe, ()) is final


def test_a_billed_answer_is_final_whatever_its_status() -> None:
    billed = answer(503, {BILLING: "status=refunded; method=x402"})
    assert is_final(billed, True, ())
    assert not is_final(answer(503), True, ())


def test_statuses_the_caller_handles_are_final() -> None:
    assert is_final(answer(503), True, (503,))
    assert not is_final(answer(502), True, (503,))


# --- which failures may be sent again ---------------------------------------------------------


def test_a_refused_connection_is_retried_even_for_a_mutation() -> None:
    exc = httpx.ConnectError("Connection refused\nsecond line")
    said = transport_problem(exc, "reply", REMOTE, resend_safe=False)
    assert said == "cannot connect to https://svc.test:8443 (Connection refused)"


@pytest.mark.parametrize(
    ("exc", "problem"),
    [
        (httpx.ReadTimeout("slow"), "poll timed out"),
        (httpx.ReadError("reset by peer"), "the connection broke (reset by peer)"),
        (httpx.RemoteProtocolError(""), "the connection broke (RemoteProtocolError)"),
    ],
)
def test_an_ambiguous_failure_is_retried_only_when_resend_safe(
    exc: httpx.TransportError, problem: str
) -> None:
    assert transport_problem(exc, "poll", REMOTE, resend_safe=True) == problem
    with pytest.raises(Unavailable) as refused:
        transport_problem(exc, "poll", REMOTE, resend_safe=False)
    assert refused.value.message.endswith("it may or may not have been applied")
    assert refused.value.exit_code == ExitCode.UNAVAILABLE


def test_a_long_error_is_cut_to_its_first_line() -> None:
    said = transport_problem(httpx.ReadError("x" * 500 + "\nmore"), "poll", REMOTE, True)
    assert said == f"the connection broke ({'x' * 200})"


# --- how long to wait -------------------------------------------------------------------------


def test_the_last_attempt_is_known() -> None:
    assert [RetryPolicy(attempts=3).is_last(n) for n in range(3)] == [False, False, True]
    assert RetryPolicy(attempts=1).is_last(0)


def test_backoff_is_full_jitter_under_a_doubling_ceiling_and_the_cap() -> None:
    policy = RetryPolicy(base=0.25, cap=2.0)
    random.seed(32)
    for attempt, ceiling in [(0, 0.25), (1, 0.5), (2, 1.0), (3, 2.0), (9, 2.0)]:
        waits = [policy.delay(attempt) for _ in range(300)]
        assert all(0 <= wait <= ceiling for wait in waits)
        assert max(waits) > 0.8 * ceiling and min(waits) < 0.2 * ceiling  # spread, not fixed


@pytest.mark.parametrize(
    ("hint", "wait"),
    [(7.0, 7.0), (0.0, 0.0), (-3.0, 0.0), (MAX_RETRY_AFTER + 1, MAX_RETRY_AFTER)],
)
def test_the_servers_wait_replaces_the_backoff_within_bounds(hint: float, wait: float) -> None:
    assert RetryPolicy(base=100.0, cap=100.0).delay(3, hint) == wait


def test_a_wait_beyond_the_bound_ends_the_retries() -> None:
    assert not waits_too_long(None)
    assert not waits_too_long(MAX_RETRY_AFTER)
    assert waits_too_long(MAX_RETRY_AFTER + 0.5)


@pytest.mark.parametrize(
    ("headers", "body", "wait"),
    [
        ({"Retry-After": "5"}, b'{"retry_after": 9}', 5.0),  # the header wins
        ({}, b'{"retry_after": 9}', 9.0),
        ({"Retry-After": "soon"}, b'{"retry_after": 9}', 9.0),  # unreadable: the body's
        ({"Retry-After": "Thu, 01 Jan 1970 00:00:00 GMT"}, b"", 0.0),  # a past date: now
        ({"Retry-After": "12"}, b"<html>busy</html>", 12.0),
        ({}, b"<html>busy</html>", None),
        ({}, b'{"retry_after": "nan"}', None),
    ],
)
def test_the_wait_a_server_asks_for(headers: dict[str, str], body: bytes, wait: float) -> None:
    assert retry_after_seconds(answer(429, headers, body)) == wait


# --- what is said when every attempt failed ---------------------------------------------------


def test_giving_up_on_loopback_points_at_the_sandbox() -> None:
    error = exhausted("poll", 4, "cannot connect to http://127.0.0.1:8402 (refused)", LOOPBACK)
    assert (
        error.message
        == "poll failed after 4 attempts: cannot connect to http://127.0.0.1:8402 (refused)"
    )
    assert error.exit_code == ExitCode.UNAVAILABLE
    assert error.hint is not None and "svc sandbox serve" in error.hint


def test_giving_up_elsewhere_points_at_the_network_and_only_for_a_connection() -> None:
    error = exhausted("poll", 4, "cannot connect to https://svc.test:8443 (refused)", REMOTE)
    assert error.hint is not None and "https://svc.test:8443" in error.hint
    assert "--base-url" in error.hint
    assert exhausted("poll", 4, "poll timed out", REMOTE).hint is None


# --- the loop that asks them ------------------------------------------------------------------


def test_a_wait_too_long_returns_the_answer_at_once(httpx_mock: HTTPXMock) -> None:
    slept: list[float] = []
    httpx_mock.add_response(status_code=503, headers={"Retry-After": "3600"})
    http = Http(retry=RetryPolicy(attempts=4), sleep=slept.append)
    response = http.send("GET", url("https://svc.test/x"), what="poll", resend_safe=True)
    assert response.status_code == 503 and slept == []
    assert len(httpx_mock.get_requests()) == 1


def test_the_last_answer_is_returned_when_retries_run_out(httpx_mock: HTTPXMock) -> None:
    slept: list[float] = []
    for _ in range(3):
        httpx_mock.add_response(status_code=502)
    http = Http(retry=RetryPolicy(attempts=3, base=0.01), sleep=slept.append)
    response = http.send("GET", url("https://svc.test/x"), what="poll", resend_safe=True)
    assert response.status_code == 502
    assert len(slept) == 2 and all(0 <= s <= 0.02 for s in slept)  # none after the last


def test_refused_connections_end_in_the_give_up_error(httpx_mock: HTTPXMock) -> None:
    notes: list[str] = []
    for _ in range(3):
        httpx_mock.add_exception(httpx.ConnectError("Connection refused"))
    http = Http(retry=RetryPolicy(attempts=3, base=0), sleep=lambda _s: None)
    with pytest.raises(Unavailable) as failed:
        http.send("POST", url(LOOPBACK), what="reply", resend_safe=False, on_retry=notes.append)
    assert failed.value.message.startswith("reply failed after 3 attempts: cannot connect to")
    assert failed.value.hint is not None and "svc sandbox serve" in failed.value.hint
    assert len(notes) == 2 and notes[0].startswith("reply: cannot connect to http://127.0.0.1")
    assert notes[0].endswith("retrying in 0.0s")


def test_a_call_whose_time_is_spent_sends_nothing_and_says_so(httpx_mock: HTTPXMock) -> None:
    from svc.api.deadline import capped

    http = Http(retry=RetryPolicy(attempts=3, base=0.0))
    with capped(0.0), pytest.raises(Unavailable) as caught:
        http.send("GET", configured(LOOPBACK, "test"), what="poll", resend_safe=True)
    assert (
        caught.value.message == "poll was not sent: the call's time ran out (or it was cancelled)"
    )
    assert caught.value.exit_code == ExitCode.UNAVAILABLE and caught.value.code == "timed_out"
    assert httpx_mock.get_requests() == []
