"""The fleet ledger's two clients in the tests: `pg_route` runs a test once on each (the lean
client, which every Unix-socket URL of tests/pg_cluster.py takes, and psycopg, forced), and
the lean client's round trips read back from the bytes it sent."""

from __future__ import annotations

import struct
from collections.abc import Iterator

import pytest

ROUTES = ("lean", "psycopg")


@pytest.fixture(params=ROUTES)
def pg_route(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Which client ("lean" or "psycopg") the ledger's connections take for this run."""
    from svc.store.ledger import pg_psycopg, postgres

    through_psycopg: list[str] = []
    real = pg_psycopg.connect

    def counted(url: str, timeout: int) -> pg_psycopg.PsycopgConnection:
        through_psycopg.append(url)
        return real(url, timeout)

    monkeypatch.setattr(pg_psycopg, "connect", counted)
    if request.param == "psycopg":
        monkeypatch.setattr(postgres, "lean_target", lambda url: None)
    yield request.param
    # the route the test meant is the one its connections took
    assert bool(through_psycopg) == (request.param == "psycopg"), through_psycopg


def round_trips(frames: list[bytes]) -> list[list[str]]:
    """Each round trip the lean client sent (one write ending with its one Sync): the SQL of
    its statements in order. A write without a Sync, or with two, fails here."""
    trips = []
    named: dict[bytes, str] = {}  # the statements kept prepared, by name, as they were parsed
    for frame in frames:
        statements, syncs, at = [], 0, 0
        unnamed = ""
        while at < len(frame):
            kind = frame[at : at + 1]
            (length,) = struct.unpack("!i", frame[at + 1 : at + 5])
            body = frame[at + 5 : at + 1 + length]
            if kind == b"P":  # Parse: a name (empty: unnamed), the SQL
                name, sql = body.split(b"\0")[:2]
                named[name] = unnamed = sql.decode()
            if kind == b"B":  # Bind: each statement run once, prepared earlier or just now
                name = body.split(b"\0")[1]
                statements.append(named[name] if name else unnamed)
            syncs += kind == b"S"
            at += 1 + length
        assert syncs == 1 and frame.endswith(b"S\0\0\0\x04"), frame[-40:]
        trips.append(statements)
    return trips
