"""PostgreSQL's frontend/backend protocol v3, as much as the lean client speaks: the messages
it sends, every message read bounded, parameters in text format typed as psycopg types them,
and results decoded by their column's type (an unknown type is an error, never a guess).

Nothing is quoted on the client: values travel as Bind parameters, apart from the SQL."""

from __future__ import annotations

import functools
import re
import socket
import struct
import time
from decimal import Decimal
from typing import Any

from svc.store.ledger.pg_api import PgError, server_error

MAX_MESSAGE = 16 * 1024 * 1024  # a row of the ledger is a few KiB; a longer message is hostile
PROTOCOL_V3 = 196608

_INT = struct.Struct("!i")
_HEAD = struct.Struct("!ci")

# psycopg's text dumpers: an int goes as the smallest of int2, int4, int8, numeric that holds
# it (`pg_advisory_xact_lock(int, int)` has no (bigint, bigint) form), a str as unknown.
INT2, INT4, INT8, NUMERIC, FLOAT8, BOOL, UNKNOWN = 21, 23, 20, 1700, 701, 16, 0
_DECODE: dict[int, Any] = {
    16: lambda text: text == "t",  # bool
    20: int, 21: int, 23: int, 26: int,  # int8, int2, int4, oid
    700: float, 701: float,  # float4, float8 ("Infinity" and "NaN" read as Python reads them)
    1700: Decimal,  # numeric, as psycopg loads it
    25: str, 1043: str, 1042: str, 19: str, 705: str,  # text, varchar, bpchar, name, unknown
    2278: str,  # void (`SELECT pg_advisory_lock(...)`): psycopg reads its empty text
}  # fmt: skip


def operational(message: str) -> PgError:
    return PgError(message, operational=True)


def message(kind: bytes, payload: bytes = b"") -> bytes:
    return kind + _INT.pack(len(payload) + 4) + payload


def cstring(text: str) -> bytes:
    data = text.encode()
    if b"\0" in data:
        raise PgError("a NUL character cannot be sent to PostgreSQL", operational=False)
    return data + b"\0"


def startup(params: dict[str, str]) -> bytes:
    body = _INT.pack(PROTOCOL_V3) + b"".join(cstring(k) + cstring(v) for k, v in params.items())
    body += b"\0"
    return _INT.pack(len(body) + 4) + body


class Reader:
    """Messages read from a socket, each bounded: a length under 4 or over MAX_MESSAGE, or an
    end of stream inside a message, is an operational error, never a hang on a short read.

    What arrived is kept until a whole message is there: a read cut short (Ctrl-C) loses
    nothing, so the rest of the answer can still be read (pg_conn drains it after a cancel)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.deadline: float | None = None  # while connecting or draining: when to give up
        self._buffer = bytearray()

    def read(self) -> tuple[bytes, bytes]:
        self._fill(5)
        kind, length = _HEAD.unpack_from(self._buffer)
        if length < 4 or length > MAX_MESSAGE:
            raise operational(f"the server sent a message of {length} bytes (type {kind!r})")
        self._fill(length + 1)
        payload = bytes(self._buffer[5 : length + 1])
        del self._buffer[: length + 1]
        return kind, payload

    def _fill(self, count: int) -> None:
        while len(self._buffer) < count:
            if self.deadline is not None:
                remaining = self.deadline - time.monotonic()
                if remaining <= 0:
                    raise operational("timeout expired")
                self.sock.settimeout(remaining)
            try:
                chunk = self.sock.recv(max(count - len(self._buffer), 65536))
            except TimeoutError:
                raise operational("timeout expired") from None
            except OSError as exc:
                raise operational(f"server closed the connection unexpectedly ({exc})") from None
            if not chunk:
                raise operational("server closed the connection unexpectedly")
            self._buffer += chunk


def fields(payload: bytes) -> dict[str, str]:
    """An ErrorResponse's or NoticeResponse's fields by their code (S, C, M, D, ...)."""
    found: dict[str, str] = {}
    for part in payload.split(b"\0"):
        if part:
            found[chr(part[0])] = part[1:].decode(errors="replace")
    return found


def error_of(payload: bytes) -> PgError:
    """An ErrorResponse as svc's error: its message (and its detail, after a line break, as
    libpq shows it) and its SQLSTATE."""
    found = fields(payload)
    text = found.get("M", "the server sent an error without a message")
    if "D" in found:
        text += "\nDETAIL:  " + found["D"]
    return server_error(text, found.get("C"))


def param(value: Any) -> tuple[int, bytes | None]:
    """A parameter's type OID and text, as psycopg's default text dumpers give them."""
    if value is None:
        return UNKNOWN, None
    if isinstance(value, bool):
        return BOOL, b"t" if value else b"f"
    if isinstance(value, int):
        number = int(value)
        if -(2**15) <= number < 2**15:
            return INT2, str(number).encode()
        if -(2**31) <= number < 2**31:
            return INT4, str(number).encode()
        return (INT8 if -(2**63) <= number < 2**63 else NUMERIC), str(number).encode()
    if isinstance(value, float):
        return FLOAT8, str(value).encode()
    if isinstance(value, str):
        return UNKNOWN, cstring(value)[:-1]
    if isinstance(value, Decimal):
        return NUMERIC, b"NaN" if value.is_nan() else str(value).encode()
    raise PgError(f"a {type(value).__name__} cannot be a parameter here", operational=False)


def decoder(oid: int) -> Any:
    found = _DECODE.get(oid)
    if found is None:
        raise PgError(f"a column of type OID {oid} cannot be read here", operational=False)
    return found


def parse(sql: str, oids: list[int], name: bytes = b"") -> bytes:
    body = name + b"\0" + cstring(sql) + struct.pack(f"!h{len(oids)}I", len(oids), *oids)
    return message(b"P", body)


def bind(values: list[bytes | None], name: bytes = b"") -> bytes:
    # the unnamed portal, then the statement's name; no format codes: every value in text
    parts = [b"\0", name, b"\0", struct.pack("!h", 0), struct.pack("!h", len(values))]
    for value in values:
        parts.append(_INT.pack(-1) if value is None else _INT.pack(len(value)) + value)
    parts.append(struct.pack("!h", 0))  # results in text
    return message(b"B", b"".join(parts))


DESCRIBE_PORTAL = message(b"D", b"P\0")
EXECUTE = message(b"E", b"\0" + _INT.pack(0))
SYNC = message(b"S")
TERMINATE = message(b"X")


def placeholders(sql: str, count: int) -> str:
    """psycopg's `%s` placeholders as the server's `$1..$n` (`%%` is a percent sign)."""
    text, number = _numbered(sql)
    if text is None:
        raise PgError(f"only %s placeholders are understood: {sql[:60]!r}", operational=False)
    if number != count:
        raise PgError(f"{count} parameters for {number} placeholders", operational=False)
    return text


_PERCENT = re.compile(r"%(.?)", re.DOTALL)


@functools.lru_cache(maxsize=256)  # the ledger's statements are few, and sent again and again
def _numbered(sql: str) -> tuple[str | None, int]:
    number = 0
    bad = False

    def one(match: re.Match[str]) -> str:
        nonlocal number, bad
        if match.group(1) == "%":
            return "%"
        if match.group(1) != "s":
            bad = True
            return ""
        number += 1
        return f"${number}"

    text = _PERCENT.sub(one, sql)
    return (None if bad else text), number
