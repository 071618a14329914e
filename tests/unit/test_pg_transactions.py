"""The fleet ledger's transactions are begun and ended by svc, not psycopg (issue 34.4: BEGIN
and the cap's lock in one round trip). What a transaction promised still holds: its statements
are one transaction (a failure leaves none of them), a serial one holds the cap's lock until
its commit, a transaction that runs nothing leaves nothing open, and the request lock is never
taken on a connection whose ledger is inside a transaction."""

from __future__ import annotations

import pytest

from svc.errors import LedgerUnavailableError
from svc.store.ledger import open_ledger
from svc.store.ledger.postgres import CAP_LOCK, NAMESPACE, PgDatabase, connect


def _cap_is_free(url: str) -> bool:
    import psycopg

    with psycopg.connect(url, autocommit=True) as other:
        row = other.execute("SELECT pg_try_advisory_lock(%s, %s)", (NAMESPACE, CAP_LOCK)).fetchone()
        if row is not None and row[0]:
            other.execute("SELECT pg_advisory_unlock(%s, %s)", (NAMESPACE, CAP_LOCK))
            return True
        return False


def _idle(db: PgDatabase) -> bool:
    return db._conn.idle


def test_a_serial_transaction_holds_the_cap_until_its_commit(
    pg_url: str,
) -> None:
    db = PgDatabase(pg_url)
    try:
        with db.write(serial=True):
            assert db.execute("SELECT 1").fetchone()[0] == 1
            assert not _cap_is_free(pg_url)  # every other runner's hold queues here
        assert _cap_is_free(pg_url) and _idle(db)
    finally:
        db.close()


def test_a_failed_statement_undoes_the_whole_transaction_and_the_ledger_goes_on(
    pg_url: str,
) -> None:
    db = PgDatabase(pg_url)
    try:
        with pytest.raises(LedgerUnavailableError), db.write(serial=True):
            db.execute(
                "INSERT INTO settings (name, value, updated_at, runner) VALUES (?, ?, ?, ?)",
                ("undone", "1", 0.0, "r"),
            )
            db.execute("SELECT * FROM no_such_table")
        assert _idle(db) and _cap_is_free(pg_url)
        row = db.execute("SELECT COUNT(*) FROM settings WHERE name = ?", ("undone",)).fetchone()
        assert row[0] == 0
        with pytest.raises(LedgerUnavailableError), db.write():
            db.execute("SELECT * FROM no_such_table")  # the first statement itself fails
        assert _idle(db)
        with db.write():
            db.execute(
                "INSERT INTO settings (name, value, updated_at, runner) VALUES (?, ?, ?, ?)",
                ("kept", "1", 0.0, "r"),
            )
        row = db.execute("SELECT COUNT(*) FROM settings WHERE name = ?", ("kept",)).fetchone()
        assert row[0] == 1
    finally:
        db.close()


def test_an_error_of_the_callers_own_rolls_the_transaction_back(pg_url: str) -> None:
    db = PgDatabase(pg_url)
    try:
        with pytest.raises(KeyError), db.write():
            db.execute(
                "INSERT INTO settings (name, value, updated_at, runner) VALUES (?, ?, ?, ?)",
                ("half", "1", 0.0, "r"),
            )
            raise KeyError("the caller's")
        assert _idle(db)
        row = db.execute("SELECT COUNT(*) FROM settings WHERE name = ?", ("half",)).fetchone()
        assert row[0] == 0
    finally:
        db.close()


def test_a_transaction_that_runs_nothing_leaves_nothing_open(pg_url: str) -> None:
    db = PgDatabase(pg_url)
    try:
        with db.write(serial=True):
            pass
        assert _idle(db) and _cap_is_free(pg_url)
        with db.write():
            assert db.execute("SELECT 2").fetchone()[0] == 2
        assert _idle(db)
    finally:
        db.close()


def test_a_request_lock_inside_the_ledgers_transaction_is_not_lent(
    pg_url: str, pg_connections: list[str]
) -> None:
    opened = pg_connections
    ledger = open_ledger(pg_url, "runner-a")
    db: PgDatabase = ledger._db  # type: ignore[attr-defined]
    try:
        with db.write(), ledger.request_lock("req_tx_pending", None):
            db.execute("SELECT 1").fetchone()  # the ledger's transaction goes on beside it
        assert len(opened) == 2  # the lock had a connection of its own
        assert _idle(db)
    finally:
        ledger.close()


def test_a_request_lock_inside_a_serial_transaction_is_not_lent(
    pg_url: str, pg_connections: list[str]
) -> None:
    """Not even before the transaction's first statement: a lock taken there would wait with
    the cap's lock held, and its release could end the transaction's connection."""
    opened = pg_connections
    ledger = open_ledger(pg_url, "runner-a")
    db: PgDatabase = ledger._db  # type: ignore[attr-defined]
    try:
        with db.write(serial=True), ledger.request_lock("req_serial_pending", None):
            db.execute("SELECT 1").fetchone()
            assert not _cap_is_free(pg_url)
        assert len(opened) == 2  # the lock had a connection of its own
        assert _idle(db) and _cap_is_free(pg_url)
    finally:
        ledger.close()


def test_a_cap_lock_that_times_out_leaves_the_ledger_usable(pg_url: str) -> None:
    """BEGIN ran, then waiting for the cap's lock failed (a lock timeout; a Ctrl-C would do the
    same): the aborted transaction is rolled back, not left open to refuse every later
    statement of this connection."""
    db = PgDatabase(pg_url)
    other = connect(pg_url)
    try:
        other.execute("SELECT pg_advisory_lock(%s, %s)", (NAMESPACE, CAP_LOCK))
        db.execute("SET lock_timeout = '200ms'")
        with pytest.raises(LedgerUnavailableError) as caught, db.write(serial=True):
            pytest.fail("the cap's lock was held by another session")
        assert caught.value.exit_code == 9 and "lock timeout" in caught.value.message
        assert _idle(db)
        other.execute("SELECT pg_advisory_unlock(%s, %s)", (NAMESPACE, CAP_LOCK))
        with db.write():
            assert db.execute("SELECT 1").fetchone() is not None
        assert _idle(db)
    finally:
        db.close()
        other.close()
