"""The lean PostgreSQL client keeps the ledger's statements prepared in the server (parsed and
planned once per connection, then only bound), against a real server: reused, planned again
when a table changes under them, never kept from a failed exchange, and bounded in number."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.pg_routes import round_trips

from svc.store.ledger import pg_conn
from svc.store.ledger.pg_api import PgError
from svc.store.ledger.pg_conn import LeanConnection
from svc.store.ledger.pg_route import lean_target

READ = "SELECT * FROM things WHERE id = %s"


def _lean(url: str) -> LeanConnection:
    target = lean_target(url)
    assert target is not None  # the test cluster's Unix socket: the lean route's
    return pg_conn.connect(target, 5)


@pytest.fixture
def conns(pg_url: str) -> Iterator[tuple[LeanConnection, LeanConnection]]:
    """A lean connection with a table of one row, and a second session beside it."""
    first, other = _lean(pg_url), _lean(pg_url)
    other.execute("CREATE TABLE things (id BIGINT PRIMARY KEY, name TEXT)")
    other.execute("INSERT INTO things (id, name) VALUES (%s, %s)", (1, "one"))
    first.trace = []
    try:
        yield first, other
    finally:
        first.close()
        other.close()


def _server_prepared(conn: LeanConnection) -> set[str]:
    rows = conn.execute("SELECT statement FROM pg_prepared_statements").fetchall()
    return {row[0] for row in rows}


def test_a_statement_sent_again_is_bound_to_its_prepared_copy(
    conns: tuple[LeanConnection, LeanConnection],
) -> None:
    conn, _ = conns
    answers = [conn.execute(READ, (1,)).fetchall() for _ in range(3)]
    assert [dict(rows[0]) for rows in answers] == [{"id": 1, "name": "one"}] * 3
    assert conn.trace is not None
    parsed = [frame for frame in conn.trace if frame.startswith(b"P")]
    assert len(parsed) == 1  # parsed once, then only bound
    assert round_trips(conn.trace) == [[READ.replace("%s", "$1")]] * 3
    assert READ.replace("%s", "$1") in _server_prepared(conn)


def test_a_column_added_by_another_session_is_read_with_the_new_plan(
    conns: tuple[LeanConnection, LeanConnection],
) -> None:
    conn, other = conns
    conn.execute(READ, (1,))
    other.execute("ALTER TABLE things ADD COLUMN colour TEXT")
    # The server refuses the kept plan (its result changed): outside a transaction the read is
    # sent again, newly parsed, and sees the new column
    assert dict(conn.execute(READ, (1,)).fetchall()[0]) == {"id": 1, "name": "one", "colour": None}
    assert dict(conn.execute(READ, (1,)).fetchall()[0]) == {"id": 1, "name": "one", "colour": None}


def test_inside_a_transaction_the_changed_plan_is_the_error_and_the_next_one_reads(
    conns: tuple[LeanConnection, LeanConnection],
) -> None:
    conn, other = conns
    conn.execute(READ, (1,))
    other.execute("ALTER TABLE things ADD COLUMN colour TEXT")
    conn.execute("BEGIN")
    with pytest.raises(PgError) as failed:
        conn.execute(READ, (1,))  # the caller's transaction is spoilt: never sent again
    assert failed.value.sqlstate == pg_conn.PLAN_CHANGED
    conn.execute("ROLLBACK")
    assert conn.idle and conn.prepared == {}
    assert dict(conn.execute(READ, (1,)).fetchall()[0])["colour"] is None


def test_this_connections_own_ddl_forgets_every_kept_plan(
    conns: tuple[LeanConnection, LeanConnection],
) -> None:
    conn, _ = conns
    conn.execute(READ, (1,))
    assert conn.prepared
    conn.execute("ALTER TABLE things ADD COLUMN colour TEXT")
    assert conn.prepared == {}
    assert dict(conn.execute(READ, (1,)).fetchall()[0])["colour"] is None


def test_a_failed_exchange_keeps_no_name_and_the_next_parse_takes_a_new_one(
    conns: tuple[LeanConnection, LeanConnection],
) -> None:
    conn, _ = conns
    insert = "INSERT INTO things (id, name) VALUES (%s, %s)"
    with pytest.raises(PgError) as failed:
        conn.execute(insert, (1, "again"))  # the key exists: refused after its Parse ran
    assert failed.value.sqlstate == "23505" and conn.prepared == {}
    assert conn.execute(insert, (2, "two")).rowcount == 1  # no "already exists"
    assert len(conn.prepared) == 1


def test_the_kept_statements_are_bounded(
    conns: tuple[LeanConnection, LeanConnection], monkeypatch: pytest.MonkeyPatch
) -> None:
    conn, _ = conns
    monkeypatch.setattr(pg_conn, "PREPARED_MAX", 2)
    for column in ("id", "name", "id, name", "name, id"):
        conn.execute(f"SELECT {column} FROM things WHERE id = %s", (1,))
    assert len(conn.prepared) == 2  # the rest went unnamed, parsed each time
    assert len(_server_prepared(conn)) == 2


def test_transaction_control_is_never_kept(conns: tuple[LeanConnection, LeanConnection]) -> None:
    conn, _ = conns
    conn.at_once([("BEGIN", ()), ("UPDATE things SET name = %s WHERE id = %s", ("x", 1))])
    conn.execute("COMMIT")
    assert [text for text, _ in conn.prepared] == ["UPDATE things SET name = $1 WHERE id = $2"]


def test_a_statement_failing_again_and_again_leaves_no_statement_behind_in_the_server(
    conns: tuple[LeanConnection, LeanConnection],
) -> None:
    conn, _ = conns
    insert = "INSERT INTO things (id, name) VALUES (%s, %s)"
    for _ in range(5):
        with pytest.raises(PgError):
            conn.execute(insert, (1, "again"))  # refused each time, after its Parse ran
    # each give-up closed at the next exchange: the server holds only what the client keeps
    held = conn.execute("SELECT count(*) FROM pg_prepared_statements").fetchone()[0]
    assert held <= len(conn.prepared) + 1  # + this count's own statement


def test_forgotten_plans_are_closed_in_the_server(
    conns: tuple[LeanConnection, LeanConnection],
) -> None:
    conn, _ = conns
    for column in ("id", "name", "id, name"):
        conn.execute(f"SELECT {column} FROM things WHERE id = %s", (1,))
    conn.execute("ALTER TABLE things ADD COLUMN colour TEXT")  # every kept plan forgotten
    conn.execute("SELECT 1")
    kept = _server_prepared(conn)
    assert not any("FROM things" in text for text in kept), kept


def test_two_connections_name_their_statements_apart(
    conns: tuple[LeanConnection, LeanConnection],
) -> None:
    conn, other = conns
    conn.execute(READ, (1,))
    other.execute(READ, (1,))
    # behind a pooler sharing sessions, one's name never runs the other's SQL
    assert set(conn.prepared.values()).isdisjoint(other.prepared.values())
