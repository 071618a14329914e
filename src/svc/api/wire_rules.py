"""An HTTP/1.1 answer read by h11's rules (what httpcore holds a server to for httpx), for the
lean plain-GET route (api/lean.py): the status line, the header fields, how the body is framed
and whether the connection may be kept. The patterns are h11's own (h11/_abnf.py); every breach
is httpx's RemoteProtocolError, as h11's is once httpx has mapped it, so the retry loop and the
error a person sees are the same on both routes (tests/unit/test_lean_wire.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import httpx  # svc/__init__.py has already kept httpx's CLI (click, rich) from loading

_OWS = rb"[ \t]*"
_TOKEN = rb"[-!#$%&'*+.^_`|~0-9a-zA-Z]+"
_VCHAR_OR_OBS = rb"[^\x00\s]"
_FIELD_CONTENT = rb"%s+(?:[ \t]+%s+)*" % (_VCHAR_OR_OBS, _VCHAR_OR_OBS)
HEADER_FIELD = re.compile(
    rb"(?P<name>%s):%s(?P<value>(?:%s)?)%s" % (_TOKEN, _OWS, _FIELD_CONTENT, _OWS)
)
FIELD_NAME = re.compile(_TOKEN)
FIELD_VALUE = re.compile(rb"(?:%s)?" % _FIELD_CONTENT)
_STATUS_LINE = re.compile(
    rb"HTTP/(?P<version>[0-9]\.[0-9]) (?P<status>[0-9]{3})(?: (?P<reason>(?:[ \t]|%s)*))?"
    % _VCHAR_OR_OBS
)
CHUNK_HEADER = re.compile(rb"(?P<size>[0-9A-Fa-f]{1,20})(?:;.*)?[ \t]*\r\n")
_CONTENT_LENGTH = re.compile(rb"[0-9]+")
_CONTENT_LENGTH_MAX_DIGITS = 20  # h11's bound
_FOLD = re.compile(rb"[ \t]+")
BLANK_LINE = re.compile(rb"\n\r?\n")
MAX_HEAD = 100 * 1024  # httpcore's max_incomplete_event_size: a head or chunk line may not pass it

Headers = list[tuple[bytes, bytes]]


def broken(message: str) -> httpx.RemoteProtocolError:
    return httpx.RemoteProtocolError(message)


@dataclass(frozen=True)
class Head:
    """An answer's status line and header fields, with the framing h11 would give its body."""

    version: bytes
    status: int
    reason: bytes
    headers: Headers
    framing: str  # "length", "chunked" or "close" (read until the server closes)
    length: int  # for "length"
    keep_alive: bool


def parse_head(block: bytes | bytearray) -> Head:
    """The head up to (not with) its blank line: lines split as h11 splits them."""
    # bytearrays, as h11 holds them (its errors show the line as one)
    lines = [line[:-1] if line.endswith(b"\r") else line for line in bytearray(block).split(b"\n")]
    if not lines or not lines[0]:
        raise broken("no response line received")
    status_line = _STATUS_LINE.fullmatch(lines[0])
    if status_line is None:
        raise broken(f"illegal status line: {lines[0]!r}")
    status = int(status_line["status"])
    if status < 100:
        raise broken(f"illegal status code {status}")
    headers = header_fields(lines[1:])
    version = bytes(status_line["version"])
    framing, length = _framing(status, headers)
    return Head(
        version,
        status,
        bytes(status_line["reason"] or b""),
        headers,
        framing,
        length,
        _keep_alive(version, headers) and framing != "close",
    )


def header_fields(lines: list[bytearray]) -> Headers:
    """Field lines (obsolete line folding joined, as h11 does), each checked."""
    fields: Headers = []
    last: bytearray | None = None
    for line in lines:
        fold = _FOLD.match(line)
        if fold is not None:
            if last is None:
                raise broken("continuation line at start of headers")
            last = last + b" " + line[fold.end() :]
            continue
        if last is not None:
            fields.append(_field(last))
        last = line
    if last is not None:
        fields.append(_field(last))
    return fields


def _field(line: bytearray) -> tuple[bytes, bytes]:
    match = HEADER_FIELD.fullmatch(line)
    if match is None:
        raise broken(f"illegal header line: {line!r}")
    return bytes(match["name"]), bytes(match["value"])


def _framing(status: int, headers: Headers) -> tuple[str, int]:
    """How the body ends (h11's `_body_framing` with its checks of the two headers)."""
    lengths: set[bytes] = set()
    codings = 0
    for name, value in headers:
        lowered = name.lower()
        if lowered == b"content-length":
            lengths |= {part.strip() for part in value.split(b",")}
        elif lowered == b"transfer-encoding":
            codings += 1
            if codings > 1:
                raise broken("multiple Transfer-Encoding headers")
            if value.lower() != b"chunked":
                raise broken("Only Transfer-Encoding: chunked is supported")
    if len(lengths) > 1:
        raise broken("conflicting Content-Length headers")
    length = lengths.pop() if lengths else None
    if length is not None and (
        not _CONTENT_LENGTH.fullmatch(length) or len(length) > _CONTENT_LENGTH_MAX_DIGITS
    ):
        raise broken("bad Content-Length")
    if status in (204, 304) or status < 200:
        return "length", 0
    if codings:
        return "chunked", 0
    if length is not None:
        return "length", int(length)
    return "close", 0


def _keep_alive(version: bytes, headers: Headers) -> bool:
    """h11's rule: HTTP/1.1 and no `Connection: close`."""
    if version < b"1.1":
        return False
    return not any(
        name.lower() == b"connection"
        and b"close" in (part.strip().lower() for part in value.split(b","))
        for name, value in headers
    )
