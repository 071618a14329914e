"""The lean client's connection: the fleet ledger on a local PostgreSQL without psycopg (issue
34: `import psycopg` was 55-70 ms of CPU in every `svc submit`, most of its gap to SQLite).

Statements go through the extended protocol, their values as text-format Bind parameters; a
whole transaction (`at_once`) is several Parse/Bind/Execute and one Sync: one round trip. A
failure mid-exchange leaves the connection closed (its state is unknown): the server rolls
back what a dead session left open.
"""

from __future__ import annotations

import contextlib
import secrets
import socket
import struct
import threading
import time
from collections.abc import Sequence
from typing import Any

from svc.store.ledger import pg_auth, pg_wire
from svc.store.ledger.pg_api import PgError, Result, Statement
from svc.store.ledger.pg_route import Target
from svc.store.ledger.pg_rows import Row, index_of
from svc.store.ledger.pg_wire import operational

_ASYNC = (b"N", b"S", b"A")  # a notice, a parameter's new value, a notification: any time
# What reading a malformed message raises (a short field, a bad number or UTF-8): an
# operational error, as every other lie of the server, never a traceback.
MALFORMED = (ValueError, IndexError, ArithmeticError, struct.error)
CANCEL_REQUEST = 80877102
DRAIN_SECONDS = 5.0  # after a cancel, the server ends the statement at once
# Statements kept prepared in the server, per connection: parsed and planned once, then only
# bound (a statement's server CPU 97 -> 45 us; the fleet's server was 2.7 s per 1000 tasks).
# Only reads and writes of rows: the ledger's are a few dozen texts, sent again and again.
PREPARED_MAX = 128
_PREPARABLE = ("SELECT", "INSERT", "UPDATE", "DELETE", "WITH")
_DDL = ("CREATE", "ALTER", "DROP", "TRUNCATE", "COMMENT")
PLAN_CHANGED = "0A000"  # "cached plan must not change result type": a column added meanwhile


class NeedsLibpq(Exception):
    """The server asks for what libpq has and the lean client has not (a password kept in
    ~/.pgpass, GSSAPI, TLS a pg_hba line requires): the caller connects through psycopg."""


class LeanConnection:
    def __init__(self, sock: socket.socket, target: Target) -> None:
        self.sock = sock
        self.target = target
        self.cancel_key = b""  # BackendKeyData's process id and secret, for a cancel
        self._lock = threading.Lock()  # one exchange at a time, as psycopg's connection
        self.reader = pg_wire.Reader(sock)
        self.status = b"I"  # ReadyForQuery's: I idle, T in a transaction, E in a failed one
        self.parameters: dict[str, str] = {}
        self.backend_pid = 0  # BackendKeyData's, at startup
        self._closed = False
        self.trace: list[bytes] | None = None  # a test's list: the bytes of each round trip
        # (text, parameter types) -> the name of a statement the server holds prepared; a name
        # is kept once its exchange succeeded, and never reused (a failed exchange may have
        # left it parsed): `_parsed` counts them
        self.prepared: dict[tuple[str, tuple[int, ...]], bytes] = {}
        self._parsed = 0
        # Names unique to this connection (behind a pooler sharing server sessions, another
        # connection's `svc_3` is never this one's: an unknown name fails, never runs other SQL)
        self._prefix = secrets.token_hex(4).encode()
        # Names the server may still hold and this connection gave up (a failed exchange's, a
        # forgotten plan's): closed at the start of the next exchange, so none accumulate
        self._orphans: list[bytes] = []

    @property
    def idle(self) -> bool:
        return self.status == b"I"

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(OSError):  # already gone: closing is all that is left
            self.sock.sendall(pg_wire.TERMINATE)
        self.sock.close()

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> Result:
        try:
            return self._exchange([(sql, params)])[0]
        except PgError as exc:
            if not _plan_changed(exc) or not self.idle:
                raise
            # Outside a transaction the failed read changed nothing: read again, newly planned
            # (inside one, the caller's transaction is spoilt, and its error is the answer)
            return self._exchange([(sql, params)])[0]

    def at_once(self, statements: Sequence[Statement]) -> list[int]:
        return [result.rowcount for result in self._exchange(statements)]

    def _exchange(self, statements: Sequence[Statement]) -> list[Result]:
        """One round trip: every statement, then Sync; the results, or the first error once
        the server is ready again (the statements after a failed one were skipped)."""
        if self._closed:
            raise operational("the connection is closed")
        with self._lock:
            parsed: dict[tuple[str, tuple[int, ...]], bytes] = {}
            closes = b"".join(pg_wire.message(b"C", b"S" + name + b"\0") for name in self._orphans)
            self._orphans = []
            data = b"".join(self._statement(sql, params, parsed) for sql, params in statements)
            results, failure = self._round_trip(closes + data + pg_wire.SYNC)
            if failure is None:
                self.prepared.update(parsed)
            else:
                self._orphans.extend(parsed.values())
            if _moves_schema(statements, failure):
                self._orphans.extend(self.prepared.values())
                self.prepared.clear()  # every statement planned again, on the new tables
        if failure is not None:  # the server is ready again: the connection goes on
            raise failure
        if len(results) != len(statements):
            self._abandon()
            raise operational(f"the server answered {len(results)} of {len(statements)} statements")
        return results

    def _statement(
        self, sql: str, params: tuple[Any, ...], parsed: dict[tuple[str, tuple[int, ...]], bytes]
    ) -> bytes:
        """A statement's messages: Bind to the server's prepared copy when it holds one, else
        Parse first (named, to keep, when it is a row statement and there is room)."""
        typed = [pg_wire.param(value) for value in params]
        text = pg_wire.placeholders(sql, len(params))
        oids = tuple(oid for oid, _ in typed)
        values = [value for _, value in typed]
        key = (text, oids)
        name = self.prepared.get(key) or parsed.get(key)
        head = b""
        if name is None:
            name = b""
            if len(self.prepared) < PREPARED_MAX and _first_word(text) in _PREPARABLE:
                self._parsed += 1
                name = parsed[key] = b"svc_%s_%d" % (self._prefix, self._parsed)
            head = pg_wire.parse(text, list(oids), name)
        return head + pg_wire.bind(values, name) + pg_wire.DESCRIBE_PORTAL + pg_wire.EXECUTE

    def _round_trip(self, data: bytes) -> tuple[list[Result], PgError | None]:
        sent = False
        try:
            self._send(data)
            sent = True
            return self._results()
        except MALFORMED:
            self._abandon()
            raise operational("the server sent a malformed message") from None
        except KeyboardInterrupt:
            # As psycopg does on Ctrl-C: the statement cancelled in the server and its answer
            # read to the end, so the connection goes on (a transaction left failed, rolled
            # back by the caller); closed only when that cannot be done
            if not (sent and self._cancelled_and_drained()):
                self._abandon()
            raise
        except BaseException:
            self._abandon()  # cut short mid-exchange: the stream's place is unknown
            raise

    def _cancelled_and_drained(self) -> bool:
        try:
            with contextlib.closing(_open(self.target, DRAIN_SECONDS)) as side:
                side.sendall(struct.pack("!ii", 16, CANCEL_REQUEST) + self.cancel_key)
            self.reader.deadline = time.monotonic() + DRAIN_SECONDS
            self._results()
        except BaseException:  # a second Ctrl-C, a dead server: the first Ctrl-C goes on
            return False
        finally:
            self.reader.deadline = None
            with contextlib.suppress(OSError):
                self.sock.settimeout(None)
        return True

    def _send(self, data: bytes) -> None:
        if self.trace is not None:
            self.trace.append(data)
        try:
            self.sock.sendall(data)
        except OSError as exc:
            raise operational(f"server closed the connection unexpectedly ({exc})") from None

    def _results(self) -> tuple[list[Result], PgError | None]:
        results: list[Result] = []
        failure: PgError | None = None
        names: tuple[str, ...] = ()
        decoders: list[Any] = []
        rows: list[Row] = []
        while True:
            kind, payload = self.reader.read()
            if kind in (b"1", b"2", b"3", b"n") or kind in _ASYNC:
                self._async(kind, payload)
            elif kind == b"T":
                names, decoders = _description(payload)
            elif kind == b"D":
                rows.append(_row(payload, names, decoders))
            elif kind in (b"C", b"I"):
                results.append(Result(rows, _rowcount(payload, len(rows)) if kind == b"C" else -1))
                names, decoders, rows = (), [], []
            elif kind == b"E":
                failure = failure or pg_wire.error_of(payload)
            elif kind == b"Z" and len(payload) == 1 and payload in (b"I", b"T", b"E"):
                self.status = payload
                break
            else:
                raise operational(f"the server sent an unexpected message {kind!r}")
        return results, failure

    def _async(self, kind: bytes, payload: bytes) -> None:
        if kind == b"K" and len(payload) >= 8:
            self.backend_pid = int.from_bytes(payload[:4], "big")
            self.cancel_key = payload
        elif kind == b"S":
            name, _, rest = payload.partition(b"\0")
            self.parameters[name.decode(errors="replace")] = rest.rstrip(b"\0").decode(
                errors="replace"
            )

    def _abandon(self) -> None:
        self._closed = True
        self.status = b"I"  # a closed session has no transaction: the server ended it
        self.sock.close()


def _first_word(sql: str) -> str:
    words = sql.split(None, 1)
    return words[0].upper() if words else ""


def _plan_changed(error: PgError) -> bool:
    """The server refusing a kept plan, not any other "feature not supported" (0A000)."""
    return error.sqlstate == PLAN_CHANGED and "cached plan" in str(error)


def _moves_schema(statements: Sequence[Statement], failure: PgError | None) -> bool:
    """A table this connection's prepared statements read may have changed: its own DDL (the
    migration), or the server saying a plan no longer fits (another runner's migration)."""
    if failure is not None and _plan_changed(failure):
        return True
    return any(_first_word(sql) in _DDL for sql, _ in statements)


def _description(payload: bytes) -> tuple[tuple[str, ...], list[Any]]:
    count = int.from_bytes(payload[:2], "big")
    names, decoders, at = [], [], 2
    for _ in range(count):
        end = payload.index(b"\0", at)
        if end + 19 > len(payload):
            raise IndexError("a field's description cut short")  # read as malformed
        names.append(payload[at:end].decode())
        oid = int.from_bytes(payload[end + 7 : end + 11], "big")
        decoders.append(pg_wire.decoder(oid))
        at = end + 19
    if at != len(payload):
        raise operational("the server sent a malformed row description")
    return tuple(names), decoders


def _row(payload: bytes, names: tuple[str, ...], decoders: list[Any]) -> Row:
    count, at = int.from_bytes(payload[:2], "big"), 2
    values: list[Any] = []
    if count != len(decoders):
        raise operational("the server sent a row unlike its description")
    for decode in decoders:
        length = int.from_bytes(payload[at : at + 4], "big", signed=True)
        at += 4
        if length < 0:
            values.append(None)
            continue
        values.append(decode(payload[at : at + length].decode()))
        at += length
    if at != len(payload):
        raise operational("the server sent a malformed row")
    return Row(names, values, index_of(names))


_COUNTED = (b"INSERT", b"UPDATE", b"DELETE", b"SELECT", b"MOVE", b"FETCH", b"COPY", b"MERGE")


def _rowcount(tag: bytes, rows: int) -> int:
    words = tag.rstrip(b"\0").split()
    if words and words[0] in _COUNTED and words[-1].isdigit():
        return int(words[-1])
    return -1


def connect(target: Target, timeout: float) -> LeanConnection:
    """A ready connection, or PgError (operational) within `timeout` seconds; NeedsLibpq when
    the server asks for what only libpq has."""
    deadline = time.monotonic() + timeout
    try:
        sock = _open(target, timeout)
    except TimeoutError:
        raise operational(f"connection to {_where(target)} failed: timeout expired") from None
    except OSError as exc:
        raise operational(f"connection to {_where(target)} failed: {exc.strerror or exc}") from None
    conn = LeanConnection(sock, target)
    conn.reader.deadline = deadline
    try:
        try:
            _start(conn, target)
        except MALFORMED:
            raise operational("the server sent a malformed message") from None
    except PgError as exc:
        conn._abandon()
        words = f"connection to {_where(target)} failed: {exc}"
        raise PgError(words, exc.sqlstate, operational=True) from None
    except BaseException:
        conn._abandon()
        raise
    conn.reader.deadline = None
    sock.settimeout(None)
    return conn


def _where(target: Target) -> str:
    if target.socket_path is not None:
        return f'server on socket "{target.socket_path}"'
    return f'server at "{target.host}", port {target.port}'


def _open(target: Target, timeout: float) -> socket.socket:
    if target.socket_path is None:
        sock = socket.create_connection((target.host, target.port), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return sock
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(target.socket_path)
    except BaseException:
        sock.close()
        raise
    return sock


def _start(conn: LeanConnection, target: Target) -> None:
    """The startup message, the authentication the server asks for, then its parameters
    until ReadyForQuery."""
    params = {"user": target.user, "database": target.database}
    if target.application_name:
        params["application_name"] = target.application_name
    conn._send(pg_wire.startup(params))
    scram: pg_auth.Scram | None = None
    while True:
        kind, payload = conn.reader.read()
        if kind == b"R":
            scram = _authenticate(conn, target, payload, scram)
        elif kind == b"E":
            error = pg_wire.error_of(payload)
            tls_may_help = target.socket_path is None and target.sslmode != "disable"
            if error.sqlstate == "28000" and tls_may_help:
                raise NeedsLibpq("the server's pg_hba may ask for TLS, which libpq tries")
            raise error
        elif kind in _ASYNC or kind == b"K":
            conn._async(kind, payload)
        elif kind == b"Z" and payload in (b"I", b"T", b"E"):
            conn.status = payload
            break
        else:
            raise operational(f"the server sent an unexpected message {kind!r} at startup")
    if conn.parameters.get("client_encoding", "").upper() not in ("UTF8", "UNICODE"):
        raise NeedsLibpq("a client encoding other than UTF8: psycopg's to decode")


def _authenticate(
    conn: LeanConnection, target: Target, payload: bytes, scram: pg_auth.Scram | None
) -> pg_auth.Scram | None:
    code = int.from_bytes(payload[:4], "big") if len(payload) >= 4 else -1
    if code == 0:  # AuthenticationOk: after SCRAM only once the server proved itself
        if scram is not None and not scram.verified:
            raise operational("the server ended SCRAM authentication without proving itself")
        return scram
    if code in (7, 8, 9):  # GSSAPI, SSPI: libpq's
        raise NeedsLibpq("GSSAPI or SSPI authentication")
    if code in (3, 5, 10) and target.password is None:
        raise NeedsLibpq("a password libpq may find in ~/.pgpass")
    if code == 3 and len(payload) == 4:
        conn._send(pg_auth.cleartext(target.password or ""))
    elif code == 5 and len(payload) == 8:
        conn._send(pg_auth.md5(target.password or "", target.user, payload[4:8]))
    elif code == 10 and scram is None:
        scram = pg_auth.Scram(target.password or "")
        conn._send(scram.first(payload[4:]))
    elif code == 11 and scram is not None and scram.expected is None:
        conn._send(scram.final(payload[4:]))
    elif code == 12 and scram is not None and scram.expected is not None:
        scram.verify(payload[4:])
    else:
        raise operational(f"the server asked for an authentication svc does not speak ({code})")
    return scram
