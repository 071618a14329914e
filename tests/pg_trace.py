"""The fleet ledger's round trips, read from libpq's own trace of its connections (psycopg's
`PGconn.trace`): every message a connection sent, and where it waited for the server.

A round trip ends with each frontend Query (a simple query: one statement, or a script of
them) and each Sync (the end of an extended-protocol exchange: Parse, Bind, Describe, Execute).
`traced(conn)` traces one of the ledger's connections while its block runs; `traced_connects`
traces every connection the ledger opens meanwhile. Both fill their list with the round trips
when the block ends, each one the SQL of the statements it ran, in order: a script split into
its statements (its values quoted in it, as psycopg's client-side cursor sent them), a bound
statement's SQL with its `$n` placeholders. A trip that ran none (psycopg preparing a statement
it has sent five times: a named Parse and its Sync) shows as `PREPARE <sql>`."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any, TextIO

import pytest

# A message's first line: who sent it (F: svc, B: the server), its length, its type, its
# fields (a string field is printed as sent: a statement's newlines continue the message).
_MESSAGE = re.compile(r"^([FB])\t\d+\t(\w+)(?:\t(.*))?$")
_PARSE = re.compile(r' "([^"]*)" "(.*)" \d+(?: \d+)*$', re.DOTALL)
_BIND = re.compile(r' "[^"]*" "([^"]*)"')
_QUERY = re.compile(r' "(.*)"$', re.DOTALL)


def _messages(trace: str) -> list[tuple[str, str, str]]:
    """(sender, type, fields) of each message in a trace written with SUPPRESS_TIMESTAMPS."""
    messages: list[tuple[str, str, str]] = []
    for line in trace.split("\n"):
        found = _MESSAGE.match(line)
        if found:
            messages.append((found[1], found[2], found[3] or ""))
        elif messages and line:
            sender, kind, fields = messages[-1]
            messages[-1] = (sender, kind, fields + "\n" + line)
    return messages


def _statements(script: str) -> list[str]:
    """A simple query's statements: split at each `;` outside a quoted literal."""
    statements, start, quoted = [], 0, False
    for at, char in enumerate(script):
        if char == "'":
            quoted = not quoted
        elif char == ";" and not quoted:
            statements.append(script[start:at].strip())
            start = at + 1
    statements.append(script[start:].strip())
    return [statement for statement in statements if statement]


def round_trips(trace: str) -> list[list[str]]:
    """Each round trip a traced connection made: the SQL of the statements it ran, in order.
    A trace ending with messages sent and no Query or Sync after them fails here."""
    trips: list[list[str]] = []
    named: dict[str, str] = {}  # the statements kept prepared, by name, as they were parsed
    statements: list[str] = []
    parsed: list[str] = []
    unnamed = ""
    pending = False
    for sender, kind, fields in _messages(trace):
        if sender != "F" or kind == "Terminate":
            continue
        pending = True
        if kind == "Parse":
            found = _PARSE.match(fields)
            assert found, fields
            name, sql = found[1], found[2]
            if name:
                named[name] = sql
                parsed.append(sql)
            else:
                unnamed = sql
        elif kind == "Bind":
            found = _BIND.match(fields)
            assert found, fields
            statements.append(named[found[1]] if found[1] else unnamed)
        elif kind == "Query":
            found = _QUERY.match(fields)
            assert found, fields
            statements += _statements(found[1])
        if kind in ("Query", "Sync"):
            trips.append(statements or [f"PREPARE {sql}" for sql in parsed])
            statements, parsed, pending = [], [], False
    assert not pending, "messages sent without a Query or a Sync after them"
    return trips


def _pgconn(conn: Any) -> Any:
    """libpq's connection under the ledger's (pg_psycopg.PsycopgConnection) or psycopg's."""
    return getattr(conn, "conn", conn).pgconn


@contextmanager
def _tracing(pgconn: Any, sink: TextIO, trips: list[list[str]]) -> Iterator[None]:
    """libpq's trace of `pgconn` into `sink` (a file open for writing) while the block runs;
    its round trips appended to `trips` at the end (a connection closed meanwhile included)."""
    from psycopg.pq import ConnStatus, Trace

    pgconn.trace(sink.fileno())
    pgconn.set_trace_flags(Trace.SUPPRESS_TIMESTAMPS)
    try:
        yield
    finally:
        if pgconn.status != ConnStatus.BAD:  # closed: libpq writes no more to it
            pgconn.untrace()
    trips += round_trips(Path(sink.name).read_text())


@contextmanager
def traced(conn: Any) -> Iterator[list[list[str]]]:
    """The round trips the ledger's connection `conn` makes while the block runs."""
    trips: list[list[str]] = []
    with tempfile.NamedTemporaryFile("w") as sink, _tracing(_pgconn(conn), sink, trips):
        yield trips


@contextmanager
def traced_connects(monkeypatch: pytest.MonkeyPatch, most: int = 8) -> Iterator[list[list[str]]]:
    """The round trips of every connection the fleet ledger opens while the block runs (at
    most `most`), one connection's after another's, each traced from its first statement (its
    set-up is not counted). The trace files are opened before the block: a command run in
    this process (tests/inproc.py) leaves no file of its own open."""
    from svc.store.ledger import pg_psycopg

    trips: list[list[str]] = []
    connect = pg_psycopg.connect
    with ExitStack() as stack:
        sinks = [stack.enter_context(tempfile.NamedTemporaryFile("w")) for _ in range(most)]
        tracings = stack.enter_context(ExitStack())  # ended first: untraced, then read

        def traced_connect(url: str, timeout: int) -> pg_psycopg.PsycopgConnection:
            conn = connect(url, timeout)
            assert sinks, f"more than {most} connections opened"
            tracings.enter_context(_tracing(_pgconn(conn), sinks.pop(0), trips))
            return conn

        with monkeypatch.context() as patch:
            patch.setattr(pg_psycopg, "connect", traced_connect)
            yield trips
