"""What a watch's poll does not do again at every poll, and what it still does: the task URL
and httpx's parse of it are built once per task, cookies set by the server are kept and sent
back, and the cleartext guard judges the route only of a request carrying something to
protect. Against a peer on loopback."""

from __future__ import annotations

import json
from collections.abc import Generator, Iterator
from http.server import BaseHTTPRequestHandler

import httpx
import pytest
from tests.loopback import Loopback, send

from svc.api.cleartext import CleartextGuard
from svc.api.http import Http
from svc.api.retry import RetryPolicy
from svc.api.tasks import TaskClient
from svc.errors import UntrustedURLError, UsageError
from svc.origin import configured


def _task_server(cookie: str | None = None) -> Loopback:
    """Answers any task URL with that task (and a cookie on the first answer, if given)."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        task_id = handler.path.rsplit("/", 1)[-1]
        headers = {}
        if cookie is not None and len(server.requests) == 1:
            headers["Set-Cookie"] = cookie
        seen = handler.headers.get("Cookie") or ""
        body = {"id": task_id, "state": "running", "cookie_seen": seen}
        send(handler, json.dumps(body).encode(), headers=headers)

    server = Loopback(answer)
    return server


@pytest.fixture
def http() -> Iterator[Http]:
    client = Http(timeout=5, retry=RetryPolicy(attempts=1), sleep=lambda _: None)
    yield client
    client.close()


def test_a_task_url_is_gated_once_and_its_parse_kept(http: Http) -> None:
    with _task_server() as server:
        tasks = TaskClient(http, server.url)
        first = tasks.poll("task_1")
        again = tasks.poll("task_1")
        assert first.raw["id"] == again.raw["id"] == "task_1"
        assert tasks.url_of("task_1") is tasks.url_of("task_1")
        assert str(tasks.url_of("task_1")) == f"{server.url}/svc/tasks/task_1"
        assert http._wire_url(tasks.url_of("task_1")) is http._wire_url(tasks.url_of("task_1"))
    assert server.requests == [("GET", "/svc/tasks/task_1")] * 2


def test_an_id_that_is_not_one_is_refused_every_time_and_never_kept(http: Http) -> None:
    tasks = TaskClient(http, "http://127.0.0.1:9")
    for _ in range(2):
        with pytest.raises(UsageError):
            tasks.url_of("../admin")
    assert not tasks._urls


def test_the_kept_urls_are_bounded(http: Http) -> None:
    tasks = TaskClient(http, "http://127.0.0.1:9")
    tasks._urls.limit = http._parsed.limit = 3
    for n in range(10):
        http._wire_url(tasks.url_of(f"task_{n}"))
    assert len(tasks._urls) <= 3 and len(http._parsed) <= 3
    assert str(tasks.url_of("task_9")).endswith("/task_9")  # still right after a clear


def test_a_cookie_the_server_sets_is_still_sent_back(http: Http) -> None:
    with _task_server(cookie="session=abc; Path=/") as server:
        tasks = TaskClient(http, server.url)
        assert tasks.poll("task_1").raw["cookie_seen"] == ""
        assert tasks.poll("task_1").raw["cookie_seen"] == "session=abc"
        assert tasks.poll("task_2").raw["cookie_seen"] == "session=abc"
    assert http.client.cookies.get("session") == "abc"


def test_an_answer_without_a_cookie_leaves_the_jar_untouched(http: Http) -> None:
    with _task_server() as server:
        TaskClient(http, server.url).poll("task_1")
    assert len(http.client.cookies.jar) == 0


def _request(url: str, headers: dict[str, str] | None = None, body: bytes = b"") -> httpx.Request:
    return httpx.Request("POST" if body else "GET", url, headers=headers, content=body)


def test_the_guard_still_refuses_a_credential_or_a_body_in_cleartext() -> None:
    routes: list[str] = []

    def route(url: str) -> None:
        routes.append(url)

    guard = CleartextGuard(route, allowed=False, warn=None)
    far = "http://pay.example.invalid/svc/tasks/t1"
    guard.check(_request(far))  # a plain poll carries nothing to protect
    assert routes == []  # and its route was not worked out
    for request in (
        _request(far, {"Authorization": "Bearer x"}),
        _request(far, {"svc-agent-authorization": "x"}),
        _request(far, body=b"{}"),
    ):
        with pytest.raises(UntrustedURLError):
            guard.check(request)
    assert len(routes) == 3
    guard.check(_request("http://127.0.0.1:9/svc/tasks/t1", {"Authorization": "Bearer x"}))
    assert configured(far, "a far URL").host == "pay.example.invalid"


# --- a plain GET straight to the transport, held to httpx's own sending -----------------------


def _echo_server(status: int = 200, extra: dict[str, str] | None = None) -> Loopback:
    """Answers with the request's header lines as it received them (names, case, order)."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        lines = [f"{name}: {value}" for name, value in handler.headers.items()]
        send(handler, json.dumps(lines).encode(), status=status, headers=extra)

    return Loopback(answer)


class _RetryOnce(httpx.Auth):
    """Adds a header, and on a 401 sends the request again with another (an auth flow)."""

    requires_response_body = True

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["X-Try"] = "1"
        response = yield request
        if response.status_code == 401:
            request.headers["X-Try"] = "2"
            yield request


def _post_echo_server(status: int = 200) -> Loopback:
    """Answers with the request's header lines and its body, as it received them."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        lines = [f"{name}: {value}" for name, value in handler.headers.items()]
        body = handler.body.decode()  # type: ignore[attr-defined]  # tests/loopback.py keeps it
        send(handler, json.dumps({"lines": lines, "body": body}).encode(), status=status)

    return Loopback(answer)


def test_a_closed_client_sends_nothing(http: Http) -> None:
    """A library client's calls after close() never reach the wire (a paid POST above all):
    httpx refuses to send on a closed client."""
    with _post_echo_server() as server:
        target = configured(server.url + "/t", "u")
        http.close()
        for method, body in (("POST", {"task": "x"}), ("GET", None)):
            with pytest.raises(RuntimeError, match="closed"):
                http._request_once(method, target, json=body, data=None, headers=None, auth=None)
        assert server.requests == []


def test_the_trace_hooks_see_the_plain_get() -> None:
    lines: list[str] = []
    http = Http(timeout=5, retry=RetryPolicy(attempts=1), trace=lines.append)
    with _echo_server() as server:
        http.send(
            "GET", configured(server.url + "/svc/tasks/t1", "u"), what="poll", resend_safe=True
        )
    http.close()
    assert any("GET" in line for line in lines) and any("200" in line for line in lines)


def test_a_cookie_the_server_set_is_sent_on_the_next_get(http: Http) -> None:
    with _task_server(cookie="session=abc; Path=/") as server:
        tasks = TaskClient(http, server.url)
        tasks.poll("task_1")  # sets the cookie: later GETs carry it
        assert tasks.poll("task_1").raw["cookie_seen"] == "session=abc"


class _Bearer(httpx.Auth):
    """What the identity auth does: a credential added by the auth flow, not by the caller."""

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        request.headers["Authorization"] = "Bearer secret-token"
        yield request


class _ProofOn402(httpx.Auth):
    """What the payment auth does: a proof added to the second request, after a 402."""

    def auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        response = yield request
        if response.status_code == 402:
            request.headers["x-payment"] = "proof"
            yield request


def test_a_credential_the_auth_flow_adds_never_leaves_in_cleartext(
    http: Http, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the plain-GET path the guard must see the request as the auth flow left it (httpx's
    order: the flow first, then the request hooks): a bearer never reaches the wire to a far
    http:// host, and a proof added after a 402 never follows the first request there."""
    sent: list[dict[str, str]] = []  # the headers each request had when it reached the wire

    def wire(request: httpx.Request) -> httpx.Response:
        sent.append(dict(request.headers))
        return httpx.Response(402, request=request)

    monkeypatch.setattr(http.transport, "handle_request", wire)
    far = configured("http://pay.example.invalid/svc/tasks/t1", "a far URL")
    for auth, reached in ((_Bearer(), 0), (_ProofOn402(), 1)):
        sent.clear()
        with pytest.raises((UntrustedURLError, UsageError)):
            http._request_once("GET", far, json=None, data=None, headers=None, auth=auth)
        assert len(sent) == reached
        assert all("authorization" not in h and "x-payment" not in h for h in sent), sent
