"""The one HTTP client of a process: `Http` wires the parts of api/ into one `httpx.Client`
and holds the one retry loop (`send`).

The parts, a module per job: transport.py (proxy routing, TLS, the whole-answer deadline),
capped.py (the size cap and bounded decoding), cleartext.py (no proof or credential in the
clear), trace.py (`-v`, secrets redacted), retry.py (what is retried, after how long) and
response.py (the expected status, the JSON body).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx  # svc/__init__.py has already kept httpx's CLI (click, rich) from loading

from svc import telemetry
from svc.api.capped import ACCEPT_ENCODING, CappedTransport
from svc.api.cleartext import CleartextGuard
from svc.api.deadline import cap_left, capped, end_deadline
from svc.api.proxies import from_environment as proxies_from_environment
from svc.api.response import expect_json
from svc.api.retry import (
    RetryPolicy,
    certificate_refused,
    exhausted,
    is_final,
    retry_after_seconds,
    transport_problem,
    waits_too_long,
)
from svc.api.trace import Tracer
from svc.api.traced import TracedTransport
from svc.api.transport import ProxyRouter
from svc.errors import Unavailable, UsageError
from svc.kept import Kept
from svc.origin import TrustedURL
from svc.version import __version__

USER_AGENT = f"svc/{__version__} (+python-httpx)"
# Seconds for each read and for a whole answer (connect, headers and body); SVC_TIMEOUT
# overrides (tests use a short one).
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RESPONSE = 16 * 1024 * 1024  # decoded bytes; SVC_MAX_RESPONSE_BYTES overrides
KEPT_URLS = 10_000  # parsed URLs kept (a watch sends the same URL for a task at each poll)


def _env_number(name: str, default: float, *, integer: bool = False) -> float:
    """A positive number from the environment, or one clear line (exit 2) if it is not one."""
    import os

    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        value = int(raw) if integer else float(raw)
    except ValueError:
        value = -1
    if not value > 0:  # also NaN
        raise UsageError(f"{name} must be a positive {'integer' if integer else 'number'}")
    return value


def whole_seconds(timeout: float | httpx.Timeout | None) -> float | None:
    """The seconds a whole call may take: the number, or an httpx.Timeout's longest bound."""
    if isinstance(timeout, httpx.Timeout):
        bounds = [t for t in (timeout.connect, timeout.read, timeout.write, timeout.pool) if t]
        return max(bounds) if bounds else None
    return timeout


def _traced(transport: httpx.BaseTransport, propagate_to: frozenset[str]) -> httpx.BaseTransport:
    """The transport, each request a span when traces are on (else itself)."""
    return TracedTransport(transport, propagate_to) if telemetry.on() else transport


def _refuse_when_spent(what: str, attempt: int, problem: str, url: str) -> None:
    """No attempt starts once the caller's whole bound is spent (or the call was cancelled)."""
    if cap_left() != 0:
        return
    if attempt == 0:
        raise Unavailable(
            f"{what} was not sent: the call's time ran out (or it was cancelled)",
            code="timed_out",
            hint="a longer timeout (Client(timeout=...)); nothing was sent",
        )
    raise exhausted(what, attempt, problem or "timed out", url)


class Http:
    """Wraps one `httpx.Client`; every command gets payment, bearer and retries the same way."""

    def __init__(
        self,
        *,
        trace: Callable[[str], None] | None = None,
        timeout: float | httpx.Timeout | None = None,
        call_timeout: float | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        warn: Callable[[str], None] | None = None,
        cleartext_ok: bool = False,
        propagate_to: frozenset[str] = frozenset(),
    ) -> None:
        """`propagate_to`: the origins a traced request may tell its trace (`traceparent`),
        when the person's OpenTelemetry variables ask for traces (svc.telemetry)."""
        self.tracer: Tracer = Tracer(trace)  # `-v`: the caller's printer, which cleans each line
        self.retry: RetryPolicy = retry or RetryPolicy()
        # A library caller's bound on each send, its retries included (Client(timeout=)).
        self.call_timeout = call_timeout
        self.sleep = sleep
        given = timeout if isinstance(timeout, httpx.Timeout) else None
        if timeout is None:
            timeout = _env_number("SVC_TIMEOUT", DEFAULT_TIMEOUT)
        seconds = whole_seconds(timeout) or DEFAULT_TIMEOUT
        limit = int(_env_number("SVC_MAX_RESPONSE_BYTES", DEFAULT_MAX_RESPONSE, integer=True))
        self.max_response_bytes = limit  # one answer's bound; a paged listing counts from it
        self.router: ProxyRouter = ProxyRouter(seconds, proxies_from_environment())
        self.cleartext: CleartextGuard = CleartextGuard(self.router.route, cleartext_ok, warn)
        hooks: dict[str, list[Callable[..., Any]]] = {"request": [self.cleartext.check]}
        if trace is not None:
            hooks = {
                "request": [self.cleartext.check, self.tracer.request],
                "response": [self.tracer.response],
            }
        self.transport: CappedTransport = CappedTransport(self.router, limit)
        self.client: httpx.Client = httpx.Client(
            transport=_traced(self.transport, propagate_to),
            timeout=given or httpx.Timeout(seconds, connect=min(10.0, seconds)),
            headers={
                "User-Agent": USER_AGENT,
                "Accept": "application/json",
                "Accept-Encoding": ACCEPT_ENCODING,
            },
            event_hooks=hooks,
            follow_redirects=False,
        )

        # URL string -> httpx's parse of it: parsing a URL was an eighth of what a poll cost
        # this process; a watch sends each task's URL every 15-60 s.
        self._parsed: Kept[str, httpx.URL] = Kept(KEPT_URLS)

    def close(self) -> None:
        self.client.close()

    def _wire_url(self, url: TrustedURL) -> httpx.URL:
        """httpx's URL for a gated one, parsed once (httpx takes a parsed URL as it is)."""
        return self._parsed.get(str(url), httpx.URL)

    def send(
        self,
        method: str,
        url: TrustedURL,
        *,
        what: str,
        json_body: Any = None,
        form: dict[str, str] | None = None,
        headers: dict[str, str] | None = None,
        auth: httpx.Auth | None = None,
        resend_safe: bool,
        on_retry: Callable[[str], None] | None = None,
        final_statuses: tuple[int, ...] = (),
    ) -> httpx.Response:
        """Send with bounded retries; return the final response whatever its status.

        `resend_safe`: the request may be sent again after an ambiguous failure (a read, or a
        paid request carrying its journaled idempotency key and proof). Otherwise only a
        refused connection, a 429 or a 503 (the request was not processed) is retried.
        `final_statuses` are returned at once, never retried (the caller has a better answer);
        `url` passed the origin gate (svc.origin): nothing else is ever sent."""
        with capped(self.call_timeout):
            return self._send(
                method,
                url,
                what=what,
                body=(json_body, form),
                headers=headers,
                auth=auth,
                resend_safe=resend_safe,
                on_retry=on_retry,
                final_statuses=final_statuses,
            )

    def _send(
        self,
        method: str,
        url: TrustedURL,
        *,
        what: str,
        body: tuple[Any, dict[str, str] | None],
        headers: dict[str, str] | None,
        auth: httpx.Auth | None,
        resend_safe: bool,
        on_retry: Callable[[str], None] | None,
        final_statuses: tuple[int, ...],
    ) -> httpx.Response:
        json_body, form = body
        return self.retried(
            lambda: self._request_once(
                method,
                url,
                json=json_body,
                data=form,  # form-encoded bodies (the OAuth token endpoint)
                headers=headers,
                auth=auth or httpx.USE_CLIENT_DEFAULT,
            ),
            what=what,
            url=str(url),
            resend_safe=resend_safe,
            on_retry=on_retry,
            final_statuses=final_statuses,
        )

    def retried(
        self,
        once: Callable[[], httpx.Response],
        *,
        what: str,
        url: str,
        resend_safe: bool,
        on_retry: Callable[[str], None] | None = None,
        final_statuses: tuple[int, ...] = (),
    ) -> httpx.Response:
        """`once` sent with the one retry loop: bounded attempts within the call's time, a
        transport failure or a retryable status tried again after its delay (a streamed
        answer left behind is closed), the final response returned whatever its status."""
        last_problem = ""
        for attempt in range(self.retry.attempts):
            _refuse_when_spent(what, attempt, last_problem, url)
            hinted: float | None = None
            try:
                response = once()
            except httpx.TransportError as exc:
                last_problem = transport_problem(exc, what, url, resend_safe)
                if certificate_refused(last_problem):  # the same certificate every time
                    raise exhausted(what, attempt + 1, last_problem, url) from None
            else:
                if is_final(response, resend_safe, final_statuses):
                    return response
                last_problem = f"HTTP {response.status_code}"
                hinted = retry_after_seconds(response)
                if self.retry.is_last(attempt) or waits_too_long(hinted):
                    return response
                response.close()
            if not self.retry.is_last(attempt):
                wait = self.retry.delay(attempt, hinted)
                left = cap_left()
                wait = wait if left is None else min(wait, left)
                self._note_retry(on_retry, what, last_problem, wait)
                self.sleep(wait)
        raise exhausted(what, self.retry.attempts, last_problem, url)

    def _request_once(self, method: str, url: TrustedURL, **kwargs: Any) -> httpx.Response:
        """One request (with its auth flow) through httpx's client; each answer within
        SVC_TIMEOUT from its first byte sent (api/httpx_route.DeadlineTransport; a timeout
        raises httpx's TimeoutException, so it is retried or reported like any other). Only a
        URL that passed the origin gate is sent (what mypy checks, held at run time too)."""
        if not isinstance(url, TrustedURL):
            raise TypeError("Http.send takes a TrustedURL from svc.origin, not a plain string")
        try:
            return self.client.request(method, self._wire_url(url), **kwargs)
        finally:
            end_deadline()

    def _note_retry(
        self, on_retry: Callable[[str], None] | None, what: str, problem: str, wait: float
    ) -> None:
        message = f"{what}: {problem}; retrying in {wait:.1f}s"
        if on_retry:
            on_retry(message)
        else:
            self.tracer.say(message)

    def get_json(self, url: TrustedURL, *, what: str, params: dict[str, Any] | None = None) -> Any:
        """A read: retried, errors mapped, body parsed."""
        if params:  # a query on the same URL: the origin stays the one the gate passed
            url = url.derive(str(httpx.URL(str(url), params=params)))
        response = self.send("GET", url, what=what, resend_safe=True)
        return expect_json(response, what)
