"""A ledger lends its own connection to its thread's request locks (issue 34.4): a paid submit
on the fleet ledger opens one connection, not two. The lock keeps its rules on it: held until
released, even if the ledger closes first; never taken inside the ledger's own transaction; a
second lock held at once gets a connection of its own; a request another runner holds, given
up on, leaves the ledger usable. (That a lock dies with its holder is the contract test's,
across processes: tests/unit/test_ledger_contract.py.)"""

from __future__ import annotations

import pytest

from svc.errors import Conflict
from svc.store.ledger import LedgerStore, open_ledger
from svc.store.ledger.postgres import lock_key


def _free(url: str, request_id: str) -> bool:
    """Whether another session can take the request's lock now (it lets go at once)."""
    import psycopg

    key = lock_key(request_id)
    with psycopg.connect(url, autocommit=True) as other:
        row = other.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
        if row is not None and row[0]:
            other.execute("SELECT pg_advisory_unlock(%s)", (key,))
            return True
        return False


def test_a_request_lock_opens_no_connection_beside_the_ledgers(
    pg_url: str, pg_connections: list[str]
) -> None:
    opened = pg_connections
    ledger = open_ledger(pg_url, "runner-a")
    try:
        assert len(opened) == 1  # the ledger's own
        with ledger.request_lock("req_one", None):
            assert not _free(pg_url, "req_one")  # held for every other runner
            ledger.journal("req_one", "http://127.0.0.1:1", "a@example.com", {"t": 1}, "x")
        assert _free(pg_url, "req_one")
        assert len(opened) == 1
        assert ledger.get("req_one") is not None  # the ledger uses its connection on
    finally:
        ledger.close()


def test_a_ledger_closed_under_a_held_lock_keeps_it_until_the_release(pg_url: str) -> None:
    ledger = open_ledger(pg_url, "runner-a")
    with ledger.request_lock("req_closing", None):
        ledger.close()  # a close inside the hold must not drop the lock under its holder
        assert not _free(pg_url, "req_closing")
    assert _free(pg_url, "req_closing")


def test_a_lock_taken_inside_the_ledgers_transaction_uses_another_connection(
    pg_url: str, pg_connections: list[str]
) -> None:
    opened = pg_connections
    ledger = open_ledger(pg_url, "runner-a")
    db = ledger._db  # type: ignore[attr-defined]
    try:
        with db.write():
            db.execute("SELECT 1").fetchone()
            with ledger.request_lock("req_in_tx", None):
                assert not _free(pg_url, "req_in_tx")
        assert len(opened) == 2  # a pool connection: the lent one was in a transaction
        assert _free(pg_url, "req_in_tx")
    finally:
        ledger.close()


def test_two_locks_held_at_once_are_both_held(pg_url: str, pg_connections: list[str]) -> None:
    opened = pg_connections
    ledger = open_ledger(pg_url, "runner-a")
    try:
        with ledger.request_lock("req_outer", None), ledger.request_lock("req_inner", None):
            assert not _free(pg_url, "req_outer")
            assert not _free(pg_url, "req_inner")
        assert len(opened) == 2  # the second lock's own connection, kept by the pool
        assert _free(pg_url, "req_outer") and _free(pg_url, "req_inner")
    finally:
        ledger.close()


def test_a_request_busy_elsewhere_given_up_on_leaves_the_ledger_usable(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psycopg

    from svc.store.ledger import locks

    monkeypatch.setattr(locks, "LOCK_WAIT_SECONDS", 0.2)
    ledger: LedgerStore = open_ledger(pg_url, "runner-a")
    waits: list[str] = []
    try:
        with psycopg.connect(pg_url, autocommit=True) as other:
            other.execute("SELECT pg_advisory_lock(%s)", (lock_key("req_busy"),))
            with (
                pytest.raises(Conflict),
                ledger.request_lock("req_busy", waits.append),
            ):
                pass
        assert waits  # it waited, said so, then gave up with the contract's conflict
        ledger.journal("req_after", "http://127.0.0.1:1", "a@example.com", {"t": 2}, "x")
        assert ledger.get("req_after") is not None
        with ledger.request_lock("req_busy", None):  # free now: taken on the same ledger
            assert not _free(pg_url, "req_busy")
    finally:
        ledger.close()
