"""A short transaction sent whole (`Database.transaction`, issue 34.4): the signature's and the
acceptance's statements go to the fleet ledger as one script, BEGIN to COMMIT, one round trip
instead of four. What `write()` promised still holds on both engines: all of it or none of it, the connection idle after a failure or a Ctrl-C, each
statement's row count, and the signature's fallback (a live authorization added where no hold
was) decided as before."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.ledger_worker import open_where
from tests.pg_cluster import Cluster
from tests.pg_trace import traced
from tests.unit.test_pg_interrupt import _ctrl_c_after

from svc.errors import LedgerUnavailableError
from svc.store.ledger import LedgerStore
from svc.store.ledger.database import Database, NoRowMatched, Otherwise, Statement
from svc.store.ledger.postgres import PgDatabase
from svc.store.ledger.sqlite import Database as SqliteDatabase

ORIGIN = "http://127.0.0.1:8402"


def _setting(name: str) -> Statement:
    return (
        "INSERT INTO settings (name, value, updated_at, runner) VALUES (?, ?, ?, ?)",
        (name, "1", 0.0, "r"),
    )


def _settings(db: Database, *names: str) -> int:
    marks = ", ".join("?" for _ in names)
    sql = f"SELECT COUNT(*) FROM settings WHERE name IN ({marks})"
    return int(db.execute(sql, names).fetchone()[0])


@pytest.fixture(params=["sqlite", "postgresql"])
def engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Database]:
    """Each engine: the local file and the fleet ledger."""
    if request.param == "sqlite":
        db: Database = SqliteDatabase(tmp_path / "ledger.sqlite3")
    else:
        cluster: Cluster = request.getfixturevalue("pg_cluster")
        db = PgDatabase(cluster.create_database("svc_" + os.urandom(6).hex()))
    try:
        yield db
    finally:
        db.close()


def test_each_statement_s_row_count_is_the_callers_to_read(engine: Database) -> None:
    engine.transaction([_setting("a"), _setting("b")])
    counts = engine.transaction(
        [
            ("UPDATE settings SET value = ? WHERE name = ?", ("2", "nobody")),  # matched none
            ("UPDATE settings SET value = ? WHERE name IN (?, ?)", ("2", "a", "b")),
            ("SELECT name FROM settings WHERE name = ?", ("a",)),
        ]
    )
    assert counts[:2] == [0, 2]


def test_an_otherwise_runs_only_where_the_statement_before_matched_nothing(
    engine: Database,
) -> None:
    engine.transaction([_setting("held")])
    touch = "UPDATE settings SET value = ? WHERE name = ?"
    unless = (
        "INSERT INTO settings (name, value, updated_at, runner)"
        " SELECT ?, ?, CAST(? AS DOUBLE PRECISION), ?"
        " WHERE NOT EXISTS (SELECT 1 FROM settings WHERE name = ?)"
    )

    def touched_or_added(name: str) -> list[int]:
        added = Otherwise(
            _setting(name + "-added"), (unless, (name + "-added", "1", 0.0, "r", name))
        )
        return engine.transaction([(touch, ("2", name)), added])

    assert touched_or_added("held") == [1, 0]  # updated: nothing added
    assert touched_or_added("absent") == [0, 1]  # nothing to update: added instead
    assert _settings(engine, "held-added") == 0 and _settings(engine, "absent-added") == 1


def test_a_failure_mid_transaction_leaves_none_of_it_and_the_ledger_goes_on(
    engine: Database,
) -> None:
    failing = ("SELECT * FROM no_such_table", ())
    # the fleet ledger's error (exit 9); SQLite's own for a statement svc got wrong, as in write()
    errors = LedgerUnavailableError if isinstance(engine, PgDatabase) else sqlite3.OperationalError
    with pytest.raises(errors):
        engine.transaction([_setting("undone"), failing, _setting("never")])
    assert _settings(engine, "undone", "never") == 0
    with pytest.raises(errors):
        engine.transaction([failing, _setting("never")])  # the first statement itself fails
    assert engine.transaction([_setting("kept")]) == [1]  # the connection is usable
    assert _settings(engine, "kept") == 1
    if isinstance(engine, PgDatabase):
        assert engine._conn.idle and not engine._conn.closed


def test_a_required_update_that_changes_no_row_commits_nothing(engine: Database) -> None:
    """The journal keeps the row it wrote (issue 34's review): a transition whose UPDATE of
    that row finds none must commit nothing of its transaction, on every engine and client
    (sent whole, the fleet ledger cannot read a count before its COMMIT: the server refuses
    the script instead), and the ledger goes on."""
    missing = ("UPDATE settings SET value = ? WHERE name = ?", ("2", "no-such-setting"))
    for where in ([_setting("undone"), missing], [missing, _setting("undone")]):
        at = where.index(missing)
        with pytest.raises(NoRowMatched) as caught:
            engine.transaction(where, required=at)
        assert caught.value.step == at
        assert _settings(engine, "undone") == 0
    assert engine.transaction([_setting("kept")]) == [1]
    found = ("UPDATE settings SET value = ? WHERE name = ?", ("3", "kept"))
    assert engine.transaction([found, missing], required=0) == [1, 0]  # a row changed: as before
    assert engine.execute("SELECT value FROM settings WHERE name = 'kept'").fetchone()[0] == "3"
    with pytest.raises(NoRowMatched), engine.write():  # part of a caller's transaction
        engine.transaction([_setting("inner"), missing], required=1)
    assert _settings(engine, "inner") == 0
    if isinstance(engine, PgDatabase):
        assert engine._conn.idle and not engine._conn.closed


def test_inside_a_callers_transaction_it_is_part_of_it(engine: Database) -> None:
    with pytest.raises(KeyError), engine.write():
        assert engine.transaction([_setting("inner")]) == [1]
        raise KeyError("the caller's own failure")
    assert _settings(engine, "inner") == 0


# --- on the fleet ledger ---------------------------------------------------------------


def test_a_ctrl_c_mid_transaction_rolls_it_back_and_the_connection_goes_on(pg_url: str) -> None:
    db = PgDatabase(pg_url)
    try:
        with _ctrl_c_after(0.3):
            db.transaction([_setting("interrupted"), ("SELECT pg_sleep(30)", ())])
        assert db._conn.idle and not db._conn.closed
        assert _settings(db, "interrupted") == 0
        assert db.transaction([_setting("after")]) == [1]
    finally:
        db.close()


def _journaled(ledger: LedgerStore, rid: str) -> None:
    ledger.journal(rid, ORIGIN, "a@example.com", {"task": rid, "email": "a@example.com"}, ORIGIN)


def _sign(ledger: LedgerStore, rid: str, valid_before: float | None) -> None:
    ledger.record_signature(
        rid, rail="x402", proof="proof-" + rid, fingerprint="fp-" + rid, amount_atomic=1_500_000,
        pay_to="0xrecipient", payer="0xpayer", network="eip155:8453", asset="0xusdc",
        valid_before=valid_before, origin=ORIGIN,
    )  # fmt: skip


def _held(ledger: LedgerStore) -> None:
    _journaled(ledger, "req_held")
    assert ledger.reserve(
        "req_held", rail="x402", amount_atomic=1_500_000, origin=ORIGIN, valid_before=9e9,
        cap_atomic=None, since=0.0,
    ) is None  # fmt: skip


def _check_signatures(ledger: LedgerStore) -> None:
    """The hold made live (its deadline kept), and a live row added where no hold was."""
    (auth,) = ledger.authorizations_of("req_held")
    assert (auth.status, auth.fingerprint, auth.valid_before) == ("live", "fp-req_held", 9e9)
    _journaled(ledger, "req_no_hold")  # a ledger older than holds: the row is added
    _sign(ledger, "req_no_hold", 1e9)
    (added,) = ledger.authorizations_of("req_no_hold")
    assert (added.status, added.amount_atomic, added.valid_before) == ("live", 1_500_000, 1e9)
    assert (added.runner, added.pay_to, added.network) == ("runner-a", "0xrecipient", "eip155:8453")
    row = ledger.get("req_no_hold")
    assert row is not None and row.status == "signed" and row.proof == "proof-req_no_hold"


def test_a_signature_on_sqlite_decides_its_fallback_as_before(tmp_path: Path) -> None:
    ledger = open_where(str(tmp_path / "ledger.sqlite3"), "runner-a")
    try:
        _held(ledger)
        _sign(ledger, "req_held", None)
        _check_signatures(ledger)
    finally:
        ledger.close()


def test_a_signature_is_one_round_trip_and_makes_its_hold_live(pg_url: str) -> None:
    ledger = open_where(pg_url, "runner-a")
    try:
        _held(ledger)
        with traced(ledger._db._conn) as trips:  # type: ignore[attr-defined]
            _sign(ledger, "req_held", None)
        (trip,) = trips  # the whole signature: one round trip (libpq's trace)
        assert trip[0] == "BEGIN" and trip[-1] == "COMMIT" and len(trip) == 5, trip
        _check_signatures(ledger)
    finally:
        ledger.close()
