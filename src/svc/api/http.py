"""The one HTTP client of a process, with timeouts, tracing and bounded retries.

Retries: reads (and paid requests re-sent with their journaled request id and proof) retry
transport errors, 5xx and 429 with exponential backoff and full jitter, honouring
`Retry-After` / `retry_after`. Anything else retries only when nothing can have reached the
server (a refused connection).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import httpx  # svc/__init__.py has already kept httpx's CLI (click, rich) from loading

from svc import __version__
from svc.api.errors import ProtocolError, SvcError, UnavailableError, error_from_response

if TYPE_CHECKING:
    from svc.ui.output import Output

USER_AGENT = f"svc/{__version__} (+python-httpx)"
REDACTED_HEADERS = frozenset(
    {
        "authorization",
        "x-payment",
        "payment-signature",
        "svc-agent-authorization",
        "svc-payment-id",
        "cookie",
        "set-cookie",
        "payment-receipt",
    }
)
MAX_RETRY_AFTER = 60.0
DEFAULT_TIMEOUT = 30.0  # seconds per read; SVC_TIMEOUT overrides (tests use a short one)
DEFAULT_MAX_RESPONSE = 16 * 1024 * 1024  # bytes; SVC_MAX_RESPONSE_BYTES overrides


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
        from svc.api.errors import UsageError

        raise UsageError(f"{name} must be a positive {'integer' if integer else 'number'}")
    return value


class ResponseTooLargeError(ProtocolError):
    """The server's answer is bigger than the client will hold in memory."""

    def __init__(self, url: httpx.URL, limit: int) -> None:
        super().__init__(
            f"the answer from {url.scheme}://{url.host}{url.path[:80]} is larger than "
            f"{limit} bytes; refusing to read it",
            code="response_too_large",
            hint="raise the cap with SVC_MAX_RESPONSE_BYTES if this answer is expected",
        )


class _CappedStream(httpx.SyncByteStream):
    def __init__(self, inner: httpx.SyncByteStream, url: httpx.URL, limit: int) -> None:
        self.inner = inner
        self.url = url
        self.limit = limit

    def __iter__(self) -> Any:
        seen = 0
        for chunk in self.inner:
            seen += len(chunk)
            if seen > self.limit:
                raise ResponseTooLargeError(self.url, self.limit)
            yield chunk

    def close(self) -> None:
        self.inner.close()


class CappedTransport(httpx.BaseTransport):
    """Refuses answers above `limit` bytes (declared or streamed): a hostile or broken server
    cannot make the client buffer gigabytes."""

    def __init__(self, inner: httpx.BaseTransport, limit: int) -> None:
        self.inner = inner
        self.limit = limit

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.limit:
            response.close()
            raise ResponseTooLargeError(request.url, self.limit)
        stream = response.stream
        assert isinstance(stream, httpx.SyncByteStream)
        response.stream = _CappedStream(stream, request.url, self.limit)
        return response

    def close(self) -> None:
        self.inner.close()


class RetryPolicy:
    def __init__(self, attempts: int = 4, base: float = 0.25, cap: float = 8.0) -> None:
        self.attempts = attempts
        self.base = base
        self.cap = cap

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), MAX_RETRY_AFTER)
        return random.uniform(0, min(self.cap, self.base * (2**attempt)))  # noqa: S311


def retry_after_seconds(response: httpx.Response) -> float | None:
    header = response.headers.get("retry-after")
    if header:
        try:
            return float(header)
        except ValueError:
            pass
    try:
        body = response.json()
    except (ValueError, UnicodeDecodeError):
        return None
    value = body.get("retry_after") if isinstance(body, dict) else None
    return float(value) if isinstance(value, int | float) else None


def _retryable_status(status: int) -> bool:
    return status == 429 or status >= 500


class Http:
    """Wraps one `httpx.Client`; every command gets payment, bearer and retries the same way."""

    def __init__(
        self,
        output: Output | None = None,
        *,
        verbose: bool = False,
        timeout: float | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.output = output
        self.verbose = verbose
        self.retry = retry or RetryPolicy()
        self.sleep = sleep
        hooks: dict[str, list[Callable[..., Any]]] = {}
        if verbose:
            hooks = {"request": [self._trace_request], "response": [self._trace_response]}
        if timeout is None:
            timeout = _env_number("SVC_TIMEOUT", DEFAULT_TIMEOUT)
        limit = int(_env_number("SVC_MAX_RESPONSE_BYTES", DEFAULT_MAX_RESPONSE, integer=True))
        self.client = httpx.Client(
            transport=CappedTransport(httpx.HTTPTransport(), limit),
            timeout=httpx.Timeout(timeout, connect=min(10.0, timeout)),
            headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
            event_hooks=hooks,
            follow_redirects=False,
        )

    def close(self) -> None:
        self.client.close()

    # --- tracing (secrets redacted) ----------------------------------------------------------

    def _trace(self, text: str) -> None:
        from svc.ui.output import trace

        trace(text)  # through ui: every line cleaned (URLs and header values are the server's)

    def _headers(self, headers: httpx.Headers) -> str:
        from svc.ui.sanitize import clean

        shown = []
        for name, value in headers.items():
            shown_value = "[redacted]" if name.lower() in REDACTED_HEADERS else value
            shown.append(f"    {clean(name, 100, single_line=True)}: {clean(shown_value, 1000)}")
        return "\n".join(shown)

    def _trace_request(self, request: httpx.Request) -> None:
        self._trace(f"> {request.method} {request.url}\n{self._headers(request.headers)}")

    def _trace_response(self, response: httpx.Response) -> None:
        self._trace(
            f"< {response.status_code} {response.request.url}\n{self._headers(response.headers)}"
        )

    # --- sending -------------------------------------------------------------------------

    def send(
        self,
        method: str,
        url: str,
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
        `final_statuses` are returned at once, never retried (the caller has a better answer).
        """
        last_problem = ""
        for attempt in range(self.retry.attempts):
            try:
                response = self.client.request(
                    method,
                    url,
                    json=json_body,
                    data=form,  # form-encoded bodies (the OAuth token endpoint)
                    headers=headers,
                    auth=auth or httpx.USE_CLIENT_DEFAULT,
                )
            except httpx.ConnectError as exc:
                last_problem = f"cannot connect to {_origin(url)} ({_short(exc)})"
            except httpx.TimeoutException:
                if not resend_safe:
                    raise UnavailableError(
                        f"{what} timed out; it may or may not have been applied"
                    ) from None
                last_problem = f"{what} timed out"
            except httpx.TransportError as exc:
                if not resend_safe:
                    raise UnavailableError(
                        f"{what}: the connection broke ({_short(exc)}); "
                        "it may or may not have been applied"
                    ) from None
                last_problem = f"the connection broke ({_short(exc)})"
            else:
                status = response.status_code
                can_retry = _retryable_status(status) and (resend_safe or status in (429, 503))
                if "svc-billing" in response.headers or status in final_statuses:
                    can_retry = False  # billed (or refunded), or the caller's to handle: final
                if not can_retry:
                    return response
                last_problem = f"HTTP {status}"
                hinted = retry_after_seconds(response)
                if attempt + 1 >= self.retry.attempts or (hinted or 0) > MAX_RETRY_AFTER:
                    return response
                wait = self.retry.delay(attempt, hinted)
                self._note_retry(on_retry, what, last_problem, wait)
                self.sleep(wait)
                continue
            if attempt + 1 < self.retry.attempts:
                wait = self.retry.delay(attempt)
                self._note_retry(on_retry, what, last_problem, wait)
                self.sleep(wait)
        raise UnavailableError(
            f"{what} failed after {self.retry.attempts} attempts: {last_problem}"
        )

    def _note_retry(
        self, on_retry: Callable[[str], None] | None, what: str, problem: str, wait: float
    ) -> None:
        message = f"{what}: {problem}; retrying in {wait:.1f}s"
        if on_retry:
            on_retry(message)
        elif self.verbose:
            self._trace(message)

    def get_json(self, url: str, *, what: str, params: dict[str, Any] | None = None) -> Any:
        """A read: retried, errors mapped, body parsed."""
        if params:
            url = str(httpx.URL(url, params=params))
        response = self.send("GET", url, what=what, resend_safe=True)
        return expect_json(response, what)


def expect_json(response: httpx.Response, what: str, ok: tuple[int, ...] = (200,)) -> Any:
    """The parsed body of a successful response, or the contract's error for anything else."""
    if response.status_code not in ok:
        raise error_from_response(response.status_code, response.content, what)
    return parse_json(response, what)


def parse_json(response: httpx.Response, what: str) -> Any:
    ctype = response.headers.get("content-type", "")
    if "json" not in ctype:
        raise ProtocolError(
            f"{what}: the server answered {ctype or 'no content type'} instead of JSON"
        )
    try:
        return json.loads(response.content)
    except (ValueError, UnicodeDecodeError):
        raise ProtocolError(f"{what}: the server sent malformed JSON") from None


def _origin(url: str) -> str:
    parsed = httpx.URL(url)
    return f"{parsed.scheme}://{parsed.netloc.decode()}"


def _short(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0][:200]


__all__ = ["Http", "RetryPolicy", "SvcError", "expect_json", "parse_json"]
