"""The one HTTP client of a process, with timeouts, tracing and bounded retries.

Retries: reads (and paid requests re-sent with their journaled request id and proof) retry
transport errors, 5xx and 429 with exponential backoff and full jitter, honouring
`Retry-After` / `retry_after`. Anything else retries only when nothing can have reached the
server (a refused connection).
"""

from __future__ import annotations

import math
import random
import ssl
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import httpcore
import httpx  # svc/__init__.py has already kept httpx's CLI (click, rich) from loading

from svc import __version__, numbers
from svc.api.headers import (
    AGENT_AUTHORIZATION,
    AUTHORIZATION,
    BILLING,
    CONTENT_TYPE,
    MPP_CREDENTIAL_ALT,
    PAYMENT_ID,
    RETRY_AFTER,
    X402_ADVISOR_PROOF,
    X402_TASK_PROOF,
)
from svc.api.jsonsafe import JsonTooDeepError, load_json
from svc.api.proxies import Proxy, ProxyEnv
from svc.api.proxies import from_environment as proxies_from_environment
from svc.api.status import error_from_response
from svc.errors import ProtocolError, SvcError, UnavailableError, UntrustedURLError, UsageError
from svc.origin import TrustedURL, is_cleartext, is_loopback_host

USER_AGENT = f"svc/{__version__} (+python-httpx)"
PAYMENT_HEADERS = frozenset(
    {X402_TASK_PROOF, X402_ADVISOR_PROOF.lower(), MPP_CREDENTIAL_ALT.lower(), PAYMENT_ID}
)
CREDENTIAL_HEADERS = frozenset({AUTHORIZATION.lower(), AGENT_AUTHORIZATION, "cookie"})
# What -v never prints: every header that carries a proof or a credential (one list with the
# cleartext guard's: an MPP credential a challenge asked for in Payment-Authorization was
# printed whole), and the receipts and cookies a server sets.
REDACTED_HEADERS = PAYMENT_HEADERS | CREDENTIAL_HEADERS | {"set-cookie", "payment-receipt"}
MAX_RETRY_AFTER = 60.0
# Seconds for each read and for a whole answer (connect, headers and body); SVC_TIMEOUT
# overrides (tests use a short one).
DEFAULT_TIMEOUT = 30.0
DEFAULT_MAX_RESPONSE = 16 * 1024 * 1024  # decoded bytes; SVC_MAX_RESPONSE_BYTES overrides
# The content codings the client asks for and decodes itself, within the cap. httpx would also
# decode br and zstd when their packages happen to be installed, without a bound: not offered.
ACCEPT_ENCODING = "gzip, deflate"
_INFLATE_STEP = 64 * 1024  # decoded bytes per step: a bomb is stopped one step past the cap


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
    """The body, decoded here (not by httpx) so that the cap counts the bytes the client would
    hold, and bounded decoding never produces more than one step past it."""

    def __init__(
        self, inner: httpx.SyncByteStream, url: httpx.URL, limit: int, coding: str
    ) -> None:
        self.inner = inner
        self.url = url
        self.limit = limit
        self.coding = coding

    def __iter__(self) -> Iterator[bytes]:
        seen = 0
        chunks: Iterator[bytes] = iter(self.inner)
        if self.coding != "identity":
            chunks = _inflate(chunks, self.coding, self.url)
        for chunk in chunks:
            seen += len(chunk)
            if seen > self.limit:
                raise ResponseTooLargeError(self.url, self.limit)
            yield chunk

    def close(self) -> None:
        self.inner.close()


def _inflate(raw: Iterator[bytes], coding: str, url: httpx.URL) -> Iterator[bytes]:
    """gzip or deflate, decoded incrementally, at most `_INFLATE_STEP` bytes at a time."""
    inflater: Any = None
    try:
        for chunk in raw:
            if inflater is None:
                inflater = zlib.decompressobj(_window_bits(coding, chunk))
            data = chunk
            while data:
                out = inflater.decompress(data, _INFLATE_STEP)
                if not out:
                    break
                yield out
                data = inflater.unconsumed_tail  # left over only when `out` filled the step
            if inflater.eof:
                return  # bytes after the end of the stream are ignored, as httpx does
        if inflater is not None:
            yield inflater.flush()  # at most a match's worth: the step above drained the rest
    except zlib.error:
        raise ProtocolError(
            f"the answer from {url.host} is not valid {coding} data", code="bad_encoding"
        ) from None


def _window_bits(coding: str, first: bytes) -> int:
    if coding == "gzip":
        return 16 + zlib.MAX_WBITS
    # deflate is meant to be zlib-wrapped (RFC 9110), but some servers send it raw; a zlib
    # header is a deflate method nibble and a check value divisible by 31.
    wrapped = len(first) < 2 or (first[0] & 0x0F == 8 and ((first[0] << 8) | first[1]) % 31 == 0)
    return zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS


def _content_coding(response: httpx.Response, url: httpx.URL) -> str:
    """The one content coding of the answer (identity when none), or ProtocolError if the
    client did not offer it: an unknown or stacked coding cannot be decoded within the cap."""
    codings = [
        value.strip().lower()
        for value in response.headers.get_list("content-encoding", split_commas=True)
    ]
    codings = [c for c in codings if c and c != "identity"]
    coding = {"x-gzip": "gzip"}.get(codings[0], codings[0]) if codings else "identity"
    if len(codings) > 1 or coding not in ("identity", "gzip", "deflate"):
        response.close()
        raise ProtocolError(
            f"the answer from {url.host} has a content encoding the client did not ask for "
            f"({', '.join(codings)[:60]!a})",
            code="bad_encoding",
        )
    return coding


class CappedTransport(httpx.BaseTransport):
    """Refuses answers above `limit` decoded bytes (declared or streamed): a hostile or broken
    server cannot make the client buffer gigabytes, compressed (a gzip bomb) or not."""

    def __init__(self, inner: httpx.BaseTransport, limit: int) -> None:
        self.inner = inner
        self.limit = limit

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        declared = response.headers.get("content-length", "")
        if declared.isascii() and declared.isdigit() and int(declared) > self.limit:
            response.close()
            raise ResponseTooLargeError(request.url, self.limit)
        coding = _content_coding(response, request.url)
        if coding != "identity":
            # Decoded below: httpx must see plain bytes, or it would decode them again.
            del response.headers["content-encoding"]
            response.headers.pop("content-length", None)
        stream = response.stream
        assert isinstance(stream, httpx.SyncByteStream)
        response.stream = _CappedStream(stream, request.url, self.limit, coding)
        return response

    def close(self) -> None:
        self.inner.close()


# The monotonic time by which the answer being received by this thread must be complete (watch
# polls from several threads through one client, so it is per thread, not per client).
_deadline = threading.local()


def _remaining(timeout: float | None, error: type[Exception]) -> float | None:
    """The time this network operation may take: its own timeout, cut to the answer's deadline."""
    until: float | None = getattr(_deadline, "at", None)
    if until is None:
        return timeout
    left = until - time.monotonic()
    if left <= 0:
        raise error("the whole answer took longer than its deadline")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    """A socket whose every read and write ends by the deadline: a server that trickles one byte
    just inside each read timeout still cannot stretch an answer past it."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self.inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self.inner.read(max_bytes, _remaining(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self.inner.write(buffer, _remaining(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self.inner.close()

    def start_tls(
        self,
        ssl_context: Any,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        remaining = _remaining(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self.inner.start_tls(ssl_context, server_hostname, remaining))

    def get_extra_info(self, info: str) -> Any:
        return self.inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self.inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        remaining = _remaining(timeout, httpcore.ConnectTimeout)
        stream = self.inner.connect_tcp(host, port, remaining, local_address, socket_options)
        return _DeadlineStream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.NetworkStream:
        remaining = _remaining(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self.inner.connect_unix_socket(path, remaining, socket_options))

    def sleep(self, seconds: float) -> None:
        self.inner.sleep(seconds)


class DeadlineTransport(httpx.BaseTransport):
    """httpx's transport, each request on the wire bounded as a whole by `seconds`.

    The deadline starts when a request is handed to the transport and covers its answer, body
    included (httpx reads it before the next request starts). Per request, not per
    `client.request` call: an auth flow (a 402 paid and re-sent, a token refreshed) sends
    several, and each has the whole bound. httpx has no whole-request timeout and no public way
    to pass a network backend, so the backend of its connection pool is wrapped
    (tests/unit/test_bounded_http.py pins this).
    """

    def __init__(
        self, seconds: float, *, verify: ssl.SSLContext | None = None, proxy: str | None = None
    ) -> None:
        self.seconds = seconds
        # One TLS context for every pool (the CA bundle is loaded once); `proxy`: through it
        # (CONNECT for https), its sockets bounded the same way.
        self.inner = httpx.HTTPTransport(verify=verify or tls_context(), proxy=proxy)
        pool = self.inner._pool
        pool._network_backend = _DeadlineBackend(pool._network_backend)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        _deadline.at = time.monotonic() + self.seconds
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


def tls_context() -> ssl.SSLContext:
    """The context every https connection verifies with: SSL_CERT_FILE, else SSL_CERT_DIR,
    else the bundled CAs (httpx reads the variables); an unreadable CA file is one line."""
    try:
        return httpx.create_ssl_context()
    except (OSError, ssl.SSLError) as exc:
        import os

        name = "SSL_CERT_FILE" if os.environ.get("SSL_CERT_FILE") else "SSL_CERT_DIR"
        reason = getattr(exc, "strerror", None) or getattr(exc, "reason", None) or "unreadable"
        raise UsageError(
            f"{name} ({os.environ.get(name, '')[:200]!a}) cannot be read as CA certificates: "
            f"{reason}",
            hint=f"point {name} at a PEM bundle, or unset it for the built-in CAs",
        ) from None


class ProxyRouter(httpx.BaseTransport):
    """Each request to a direct connection or to its proxy, as the environment says (httpx
    drops the proxy variables once it is handed a transport: api/proxies.py); every route is a
    DeadlineTransport, and the CappedTransport around this one bounds every answer."""

    def __init__(self, seconds: float, env: ProxyEnv) -> None:
        self.env = env
        context = tls_context()
        self.direct = DeadlineTransport(seconds, verify=context)
        self.via = {
            p.url: DeadlineTransport(seconds, verify=context, proxy=p.url) for p in env.proxies
        }

    def route(self, url: str) -> Proxy | None:
        return self.env.proxy_for(url)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        proxy = self.route(str(request.url))
        transport = self.direct if proxy is None else self.via[proxy.url]
        return transport.handle_request(request)

    def close(self) -> None:
        for transport in (self.direct, *self.via.values()):
            transport.close()


class CleartextGuard:
    """No payment or credential leaves this machine in cleartext unless the person allowed it
    (allow_insecure_http), and then each says so (issue 29.4). Checked on every request as it
    leaves (an httpx request hook runs after the auth flow added its proof), so a discovered
    endpoint, a next-page link or a card URL is held to the rule like the base URL: http://
    to another host, or http:// to any host through a proxy on another host."""

    def __init__(
        self,
        route: Callable[[str], Proxy | None],
        allowed: bool,
        warn: Callable[[str], None] | None,
    ) -> None:
        self.route = route
        self.allowed = allowed
        self.warn = warn
        self._warned: set[str] = set()

    def check(self, request: httpx.Request) -> None:
        url = str(request.url)
        proxy = self.route(url)
        clear = is_cleartext(url) or (
            request.url.scheme == "http" and proxy is not None and not is_loopback_host(proxy.host)
        )
        paying = _has_any(request, PAYMENT_HEADERS) or _mpp_credential(request)
        if not clear or not (paying or _has_any(request, CREDENTIAL_HEADERS) or _has_body(request)):
            return
        host = request.url.host
        if not self.allowed:
            raise _cleartext_refusal(host, proxy)
        if paying:
            self._say(
                f"paying over cleartext http to {host}: anyone on the path can read or change it"
            )
        elif host not in self._warned:  # a credential on every poll of a watch: once a host
            self._warned.add(host)
            self._say(
                f"sending credentials and data over cleartext http to {host}: "
                "anyone on the path can read or change them"
            )

    def _say(self, text: str) -> None:
        if self.warn is not None:
            self.warn(text)


def _has_any(request: httpx.Request, names: frozenset[str]) -> bool:
    return any(name.lower() in names for name in request.headers)


def _mpp_credential(request: httpx.Request) -> bool:
    return bool(request.headers.get(AUTHORIZATION, "").lower().startswith("payment "))


def _has_body(request: httpx.Request) -> bool:
    try:
        return bool(request.content)
    except httpx.RequestNotRead:  # a streamed body: something is being sent
        return True


def _cleartext_refusal(host: str, proxy: Proxy | None) -> SvcError:
    if is_loopback_host(host) and proxy is not None:  # the proxy takes it off this machine
        return UsageError(
            f"{host} would be reached through the proxy {proxy.shown()} ({proxy.variable}) "
            "over plain http: a payment or credential would leave this machine in cleartext; "
            "nothing was sent",
            code="cleartext_url",
            hint=f"list it in NO_PROXY (NO_PROXY={host},localhost), or use https://",
        )
    return UntrustedURLError(
        f"refused to send a payment or credential over plain http:// to {host}; "
        "nothing was sent there",
        code="cleartext_url",
        hint="use https://; only for a server you trust on a network you trust: "
        "allow_insecure_http = true (SVC_ALLOW_INSECURE_HTTP=1)",
    )


class RetryPolicy:
    def __init__(self, attempts: int = 4, base: float = 0.25, cap: float = 8.0) -> None:
        self.attempts = attempts
        self.base = base
        self.cap = cap

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
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


def _is_final(response: httpx.Response, resend_safe: bool, final_statuses: tuple[int, ...]) -> bool:
    """An answer not to retry: success, a client error, a billed (or refunded) answer, one the
    caller handles itself, or a server error on a request that must not be sent twice (only a
    429 or 503 says it was not processed)."""
    status = response.status_code
    if BILLING in response.headers or status in final_statuses:
        return True
    return not (_retryable_status(status) and (resend_safe or status in (429, 503)))


def _transport_problem(exc: httpx.TransportError, what: str, url: str, resend_safe: bool) -> str:
    """What went wrong, for the retry note; raises when a retry could apply the request twice
    (a refused connection never reached the server, so it is always retried)."""
    if isinstance(exc, httpx.ConnectError):
        return f"cannot connect to {_origin(url)} ({_short(exc)})"
    if isinstance(exc, httpx.TimeoutException):
        if not resend_safe:
            raise UnavailableError(f"{what} timed out; it may or may not have been applied")
        return f"{what} timed out"
    if not resend_safe:
        raise UnavailableError(
            f"{what}: the connection broke ({_short(exc)}); it may or may not have been applied"
        )
    return f"the connection broke ({_short(exc)})"


def _retryable_status(status: int) -> bool:
    return status == 429 or status >= 500


class Http:
    """Wraps one `httpx.Client`; every command gets payment, bearer and retries the same way."""

    def __init__(
        self,
        *,
        trace: Callable[[str], None] | None = None,
        timeout: float | None = None,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        warn: Callable[[str], None] | None = None,
        cleartext_ok: bool = False,
    ) -> None:
        self._trace_to = trace  # `-v`: the caller's printer, which cleans each line
        self.retry = retry or RetryPolicy()
        self.sleep = sleep
        if timeout is None:
            timeout = _env_number("SVC_TIMEOUT", DEFAULT_TIMEOUT)
        limit = int(_env_number("SVC_MAX_RESPONSE_BYTES", DEFAULT_MAX_RESPONSE, integer=True))
        self.max_response_bytes = limit  # one answer's bound; a paged listing counts from it
        self.router = ProxyRouter(timeout, proxies_from_environment())
        self.cleartext = CleartextGuard(self.router.route, cleartext_ok, warn)
        hooks: dict[str, list[Callable[..., Any]]] = {"request": [self.cleartext.check]}
        if trace is not None:
            hooks = {
                "request": [self.cleartext.check, self._trace_request],
                "response": [self._trace_response],
            }
        self.client = httpx.Client(
            transport=CappedTransport(self.router, limit),
            timeout=httpx.Timeout(timeout, connect=min(10.0, timeout)),
            headers={
                "User-Agent": USER_AGENT,
                "Accept": "application/json",
                "Accept-Encoding": ACCEPT_ENCODING,
            },
            event_hooks=hooks,
            follow_redirects=False,
        )

    def close(self) -> None:
        self.client.close()

    # --- tracing (secrets redacted) ----------------------------------------------------------

    def _trace(self, text: str) -> None:
        if self._trace_to is not None:
            self._trace_to(text)

    def _headers(self, headers: httpx.Headers) -> str:
        """Header lines with secrets redacted and each part cut; the printer cleans them."""
        shown = []
        for name, value in headers.items():
            shown_value = "[redacted]" if name.lower() in REDACTED_HEADERS else value
            shown.append(f"    {name[:100]}: {shown_value[:1000]}")
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
        last_problem = ""
        for attempt in range(self.retry.attempts):
            hinted: float | None = None
            try:
                response = self._request_once(
                    method,
                    url,
                    json=json_body,
                    data=form,  # form-encoded bodies (the OAuth token endpoint)
                    headers=headers,
                    auth=auth or httpx.USE_CLIENT_DEFAULT,
                )
            except httpx.TransportError as exc:
                last_problem = _transport_problem(exc, what, str(url), resend_safe)
            else:
                if _is_final(response, resend_safe, final_statuses):
                    return response
                last_problem = f"HTTP {response.status_code}"
                hinted = retry_after_seconds(response)
                if attempt + 1 >= self.retry.attempts or (hinted or 0) > MAX_RETRY_AFTER:
                    return response
            if attempt + 1 < self.retry.attempts:
                wait = self.retry.delay(attempt, hinted)
                self._note_retry(on_retry, what, last_problem, wait)
                self.sleep(wait)
        raise UnavailableError(
            f"{what} failed after {self.retry.attempts} attempts: {last_problem}",
            hint=_connect_hint(str(url)) if last_problem.startswith("cannot connect") else None,
        )

    def _request_once(self, method: str, url: TrustedURL, **kwargs: Any) -> httpx.Response:
        """One request (with its auth flow); each answer within SVC_TIMEOUT from its first byte
        sent (DeadlineTransport; a timeout raises httpx's TimeoutException, so it is retried or
        reported like any other). Only a URL that passed the origin gate is sent (what mypy
        checks, held at run time too)."""
        if not isinstance(url, TrustedURL):
            raise TypeError("Http.send takes a TrustedURL from svc.origin, not a plain string")
        try:
            return self.client.request(method, str(url), **kwargs)
        finally:
            _deadline.at = None  # later sockets of this thread keep their own timeouts

    def _note_retry(
        self, on_retry: Callable[[str], None] | None, what: str, problem: str, wait: float
    ) -> None:
        message = f"{what}: {problem}; retrying in {wait:.1f}s"
        if on_retry:
            on_retry(message)
        else:
            self._trace(message)

    def get_json(self, url: TrustedURL, *, what: str, params: dict[str, Any] | None = None) -> Any:
        """A read: retried, errors mapped, body parsed."""
        if params:  # a query on the same URL: the origin stays the one the gate passed
            url = url.derive(str(httpx.URL(str(url), params=params)))
        response = self.send("GET", url, what=what, resend_safe=True)
        return expect_json(response, what)


def expect_status(
    response: httpx.Response, what: str, ok: tuple[int, ...] = (200,)
) -> httpx.Response:
    """The response, when its status is one the caller expects. An error status is the
    contract's error for it; any other status is not what the spec promises."""
    status = response.status_code
    if status in ok:
        return response
    if status >= 400:
        raise error_from_response(status, response.content, what)
    expected = " or ".join(str(code) for code in ok)
    raise ProtocolError(f"{what}: the service answered {status}, not {expected}")


def expect_json(response: httpx.Response, what: str, ok: tuple[int, ...] = (200,)) -> Any:
    """The parsed body of a successful response, or the contract's error for anything else."""
    return parse_json(expect_status(response, what, ok), what)


def parse_json(response: httpx.Response, what: str) -> Any:
    return json_body(response.content, response.headers.get(CONTENT_TYPE, ""), what)


def json_body(content: bytes, content_type: str, what: str) -> Any:
    """A body the server labelled JSON, parsed within the depth bound; else ProtocolError."""
    if "json" not in content_type:
        raise ProtocolError(
            f"{what}: the server answered {content_type or 'no content type'} instead of JSON"
        )
    try:
        return load_json(content, what)
    except JsonTooDeepError:
        raise
    except (ValueError, UnicodeDecodeError):
        raise ProtocolError(f"{what}: the server sent malformed JSON") from None


def _origin(url: str) -> str:
    parsed = httpx.URL(url)
    return f"{parsed.scheme}://{parsed.netloc.decode()}"


def _connect_hint(url: str) -> str:
    """Exit 9's next step: on loopback the usual cause is a sandbox that is not running."""
    host = httpx.URL(url).host
    if is_loopback_host(host):
        return (
            f"the base URL is on this machine ({_origin(url)}): is the sandbox running? "
            "start it with: svc sandbox serve (and pass --port to match)"
        )
    return f"check the network and the base URL ({_origin(url)}; --base-url, SVC_BASE_URL)"


def _short(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0][:200]


__all__ = ["Http", "RetryPolicy", "SvcError", "expect_json", "parse_json"]
