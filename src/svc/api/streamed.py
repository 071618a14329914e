"""A request to any origin whose answer is streamed, not held: `svc request`'s one send.

The same client as every other call (api/http.py: the cleartext guard, `-v`, the proxies, TLS),
and the same retry rules (api/retry.py); only the body is different: a successful answer is
handed back unread, for the caller to write out chunk by chunk (api/capped.py lifts the size
cap for it alone), and the whole-answer deadline ends once its headers are in, so a long
download is bounded by each read's timeout, as curl's is.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import httpx

from svc.api import headers
from svc.api.capped import STREAMED
from svc.api.deadline import capped, end_deadline
from svc.api.http import Http
from svc.api.status import error_from_response, is_payment_challenge
from svc.errors import SvcError, Unavailable
from svc.origin import TrustedURL

CHUNK_BYTES = 64 * 1024  # one write to the file or stdout: memory stays at about this


@dataclass(frozen=True)
class Outgoing:
    """The request as the person wrote it: method, gated URL, their headers and body."""

    method: str
    url: TrustedURL
    headers: tuple[tuple[str, str], ...]
    body: bytes | None


@dataclass
class Answer:
    """An answer whose body is not read yet (`chunks` reads it, once), or read for a 402 or
    an error (`content`)."""

    response: httpx.Response

    @property
    def status(self) -> int:
        return self.response.status_code

    @property
    def headers(self) -> list[tuple[str, str]]:
        return list(self.response.headers.multi_items())

    @property
    def succeeded(self) -> bool:
        """2xx or 3xx: the server served the request (a redirect is not followed)."""
        return self.status < 400

    @property
    def asks_payment(self) -> bool:
        return is_payment_challenge(self.response)

    @property
    def server_failed(self) -> bool:
        """5xx: whether a paid request was processed is unknown."""
        return self.status >= 500

    def error(self, what: str) -> SvcError | None:
        """The error the contract's table gives this status (None: it succeeded)."""
        return None if self.succeeded else error_from_response(self.status, self.content(), what)

    @property
    def receipt(self) -> str | None:
        """The rail's settlement receipt: x402's (either version's header) or MPP's."""
        return (
            self.header(headers.X402_RECEIPT)
            or self.header(headers.X402_V1_RECEIPT)
            or self.header(headers.MPP_RECEIPT)
        )

    @property
    def billing(self) -> str | None:
        return self.header(headers.BILLING)

    def header(self, name: str) -> str | None:
        value: str | None = self.response.headers.get(name)
        return value

    def content(self) -> bytes:
        """The whole body (capped: only a 402 or an error answer is read whole)."""
        return self.response.read()

    def chunks(self) -> Iterator[bytes]:
        """The body as it comes, closed at the end (or when the reader stops early). A
        connection that breaks or goes silent mid-body is svc's `Unavailable`, never httpx's
        error: every face turns it into its exit code and says what was paid."""
        try:
            yield from self.response.iter_bytes(CHUNK_BYTES)
        except httpx.TransportError as exc:  # timeouts included
            raise self._cut_off(self.response.num_bytes_downloaded, exc) from None
        finally:
            self.response.close()

    def _cut_off(self, got: int, exc: httpx.TransportError) -> Unavailable:
        why = (
            "no byte came within the read timeout"
            if isinstance(exc, httpx.TimeoutException)
            else (str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__)
        )
        message = f"the answer's body was cut off after {got} bytes ({why})"
        if not self.carried_proof:
            return Unavailable(message + "; nothing was paid for it")
        return Unavailable(
            message + "; the request was paid (it carried a proof and was answered)",
            hint="its receipt shows what was charged; a resume with the same request id sends "
            "nothing again (it was answered)",
        )

    @property
    def carried_proof(self) -> bool:
        """Whether the request this answers carried a payment proof (svc wrote it)."""
        sent = self.response.request.headers
        return any(name in sent for name in headers.PAYMENT_HEADERS) or sent.get(
            headers.AUTHORIZATION, ""
        ).lower().startswith("payment ")

    def close(self) -> None:
        self.response.close()


def with_defaults(
    pairs: tuple[tuple[str, str], ...], body: bytes | None
) -> tuple[tuple[str, str], ...]:
    """curl's defaults for what the person did not set: any type of answer is welcome, and a
    body is a form unless they said otherwise."""
    given = {name.lower() for name, _ in pairs}
    extra: list[tuple[str, str]] = []
    if "accept" not in given:
        extra.append(("Accept", "*/*"))
    if body is not None and headers.CONTENT_TYPE.lower() not in given:
        extra.append((headers.CONTENT_TYPE, "application/x-www-form-urlencoded"))
    return (*pairs, *extra)


def reason_phrase(status: int) -> str:
    """The status line's words (`-i`), from the status alone (HTTP/2 sends none)."""
    return httpx.codes.get_reason_phrase(status)


def send(http: Http, out: Outgoing, auth: httpx.Auth, *, resend_safe: bool) -> Answer:
    """Send `out` with `auth` (the payment flow) through Http's one retry loop, within the
    call's time; the final answer, its body unread when it succeeded. `resend_safe`: a lost
    answer may be asked again."""
    with capped(http.call_timeout):
        response = http.retried(
            lambda: _once(http, out, auth),
            what=f"{out.method} {out.url.netloc}",
            url=str(out.url),
            resend_safe=resend_safe,
        )
    return Answer(response)


def _once(http: Http, out: Outgoing, auth: httpx.Auth) -> httpx.Response:
    request = http.client.build_request(
        out.method,
        str(out.url),
        headers=list(out.headers),
        content=out.body,
        extensions={STREAMED: True},
    )
    try:
        response = http.client.send(request, auth=auth, stream=True)
    finally:
        end_deadline()  # the headers are in: the body is bounded by each read's timeout
    if response.is_error:
        response.read()  # a 402 or an error: small, capped, read whole for the caller
    return response
