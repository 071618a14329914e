"""When a request is sent again, and after how long; the one loop that asks is `Http.send`.

Reads (and paid requests re-sent with their journaled request id and proof: "resend-safe")
retry transport errors, 5xx and 429 with exponential backoff and full jitter, honouring
`Retry-After` / `retry_after` up to `MAX_RETRY_AFTER` (a longer wait ends the retries with the
answer in hand). Anything else retries only when nothing can have reached the server (a
refused connection, a 429 or a 503).
"""

from __future__ import annotations

import math
import random

import httpx  # svc/__init__.py has already kept httpx's CLI (click, rich) from loading

from svc import numbers
from svc.api.headers import BILLING, RETRY_AFTER
from svc.api.jsonsafe import load_json
from svc.errors import Unavailable
from svc.origin import is_loopback_host

MAX_RETRY_AFTER = 60.0


class RetryPolicy:
    """How many attempts a request gets, and the wait before each next one."""

    def __init__(self, attempts: int = 4, base: float = 0.25, cap: float = 8.0) -> None:
        self.attempts = attempts
        self.base = base
        self.cap = cap

    def is_last(self, attempt: int) -> bool:
        """Whether `attempt` (counted from 0) is the last one allowed."""
        return attempt + 1 >= self.attempts

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """The server's wait when it gave one (kept within 0..MAX_RETRY_AFTER), else full
        jitter under an exponential ceiling (spread, so many clients do not retry together)."""
        if retry_after is not None and math.isfinite(retry_after):
            return min(max(retry_after, 0.0), MAX_RETRY_AFTER)
        return random.uniform(0, min(self.cap, self.base * (2**attempt)))  # noqa: S311


def retry_after_seconds(response: httpx.Response) -> float | None:
    """The wait a 429/503 asks for (header, else body), read by `svc.numbers`: None when the
    server gave none that is a sane wait (`nan`, `-5`, `1e999`, a date in the past ...)."""
    value: object = None
    try:
        body = load_json(response.content)
    except (ValueError, UnicodeDecodeError):
        body = None
    if isinstance(body, dict):
        value = body.get("retry_after")
    return numbers.retry_after(response.headers.get(RETRY_AFTER), value)


def waits_too_long(retry_after: float | None) -> bool:
    """A server asking for a longer wait than a command should sit through: its answer is
    returned (the caller reports it, Retry-After included) instead of being waited on."""
    return (retry_after or 0) > MAX_RETRY_AFTER


def is_final(response: httpx.Response, resend_safe: bool, final_statuses: tuple[int, ...]) -> bool:
    """An answer not to retry: success, a client error, a billed (or refunded) answer, one the
    caller handles itself, or a server error on a request that must not be sent twice (only a
    429 or 503 says it was not processed)."""
    status = response.status_code
    if BILLING in response.headers or status in final_statuses:
        return True
    return not (_retryable_status(status) and (resend_safe or status in (429, 503)))


def _retryable_status(status: int) -> bool:
    return status == 429 or status >= 500


def transport_problem(exc: httpx.TransportError, what: str, url: str, resend_safe: bool) -> str:
    """What went wrong, for the retry note; raises when a retry could apply the request twice
    (a refused connection never reached the server, so it is always retried)."""
    if isinstance(exc, httpx.ConnectError):
        return f"cannot connect to {_origin(url)} ({_short(exc)})"
    if isinstance(exc, httpx.TimeoutException):
        if not resend_safe:
            raise Unavailable(f"{what} timed out; it may or may not have been applied")
        return f"{what} timed out"
    if not resend_safe:
        raise Unavailable(
            f"{what}: the connection broke ({_short(exc)}); it may or may not have been applied"
        )
    return f"the connection broke ({_short(exc)})"


def certificate_refused(problem: str) -> bool:
    """A connection ended by our check of the server's certificate: a retry meets the same
    certificate, so the first refusal is the answer (it was retried 4 times, for nothing)."""
    return "CERTIFICATE_VERIFY_FAILED" in problem


def exhausted(what: str, attempts: int, problem: str, url: str) -> Unavailable:
    """The error once every attempt failed without an answer to return (exit 9)."""
    tries = "1 attempt" if attempts == 1 else f"{attempts} attempts"
    return Unavailable(
        f"{what} failed after {tries}: {problem}",
        hint=_connect_hint(url, problem) if problem.startswith("cannot connect") else None,
    )


def _connect_hint(url: str, problem: str) -> str:
    """Exit 9's next step: a certificate refused names the CA settings; on loopback the usual
    cause is a sandbox that is not running."""
    if certificate_refused(problem):
        return (
            f"the server's certificate is not trusted ({_origin(url)}): for a private CA set "
            "SSL_CERT_FILE or SSL_CERT_DIR to its certificates; else check the host name"
        )
    host = httpx.URL(url).host
    if is_loopback_host(host):
        return (
            f"the base URL is on this machine ({_origin(url)}): is the sandbox running? "
            "start it with: svc sandbox serve (and pass --port to match)"
        )
    return f"check the network and the base URL ({_origin(url)}; --base-url, SVC_BASE_URL)"


def _origin(url: str) -> str:
    parsed = httpx.URL(url)
    return f"{parsed.scheme}://{parsed.netloc.decode()}"


def _short(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0][:200]
