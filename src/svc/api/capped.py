"""Bounded answers: no answer bigger than the cap is held in memory, compressed or not.

`CappedTransport` wraps the route (api/transport.ProxyRouter) and decodes the body itself, so
the cap counts the bytes the client would hold and a gzip bomb is stopped one step past it.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Any

import httpx  # svc/__init__.py has already kept httpx's CLI (click, rich) from loading

from svc.errors import ProtocolError

# The content codings the client asks for and decodes itself, within the cap. httpx would also
# decode br and zstd when their packages happen to be installed, without a bound: not offered.
ACCEPT_ENCODING = "gzip, deflate"
_INFLATE_STEP = 64 * 1024  # decoded bytes per step: a bomb is stopped one step past the cap
# A request extension: its successful answer's body is streamed by the caller to a file or
# stdout, never held, so no cap applies to it; a 402 or an error answer is still capped
# (the client reads those whole).
STREAMED = "svc_streamed"


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
        limit = self.limit
        if request.extensions.get(STREAMED) and response.status_code < 400:
            limit = 2**63  # written out chunk by chunk as it comes: bounded memory all the same
        declared = response.headers.get("content-length", "")
        if declared.isascii() and declared.isdigit() and int(declared) > limit:
            response.close()
            raise ResponseTooLargeError(request.url, limit)
        coding = _content_coding(response, request.url)
        if coding != "identity":
            # Decoded below: httpx must see plain bytes, or it would decode them again.
            del response.headers["content-encoding"]
            response.headers.pop("content-length", None)
        stream = response.stream
        assert isinstance(stream, httpx.SyncByteStream)
        response.stream = _CappedStream(stream, request.url, limit, coding)
        return response

    def close(self) -> None:
        self.inner.close()
