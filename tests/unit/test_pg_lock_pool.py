"""A runner keeps the connections its request-id locks live on (issue 34.4): one per lock
held at once, not one per request; a released lock is free for every other runner; a kept
connection the server closed is replaced; and a lock still dies with its holder (the
contract test of the ledger checks that across processes)."""

from __future__ import annotations

import time
from typing import Any

from svc.store.ledger import open_ledger
from svc.store.ledger.pg_api import PgConnection
from svc.store.ledger.pg_lock_pool import LockConnections
from svc.store.ledger.postgres import connect, lock_key


def test_a_hundred_requests_one_after_another_keep_one_connection(
    pg_url: str, pg_connections: list[str]
) -> None:
    opened = pg_connections
    ledger = open_ledger(pg_url, "runner-a")
    try:
        with ledger.request_lock("req_warm", None):
            pass
        before = len(opened)
        for n in range(100):
            with ledger.request_lock(f"req_seq_{n}", None):
                pass
        assert len(opened) == before  # the kept one each time: no new connection
    finally:
        ledger.close()


def test_a_released_lock_is_free_for_another_runner(pg_url: str) -> None:
    import psycopg

    ledger = open_ledger(pg_url, "runner-a")
    try:
        with (
            ledger.request_lock("req_shared", None),
            psycopg.connect(pg_url, autocommit=True) as other,
        ):
            row = other.execute(
                "SELECT pg_try_advisory_lock(%s)", (lock_key("req_shared"),)
            ).fetchone()
            assert row is not None and row[0] is False  # held: another runner waits
        with psycopg.connect(pg_url, autocommit=True) as other:
            key = lock_key("req_shared")
            row = other.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
            assert row is not None and row[0] is True  # released, though its connection lives
            other.execute("SELECT pg_advisory_unlock(%s)", (key,))
    finally:
        ledger.close()


def test_a_kept_connection_the_server_closed_is_replaced(pg_url: str) -> None:
    import psycopg

    made: list[Any] = []

    def fresh() -> PgConnection:
        made.append(connect(pg_url))
        return made[-1]

    pool = LockConnections(fresh)
    conn, taken = pool.try_lock(lock_key("req_a"))
    assert taken
    pool.release(conn, lock_key("req_a"))
    pid = conn.backend_pid
    with psycopg.connect(pg_url, autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
    again, taken = pool.try_lock(lock_key("req_b"))
    assert taken and again is not conn and len(made) == 2
    pool.release(again, lock_key("req_b"))


def test_a_connection_whose_unlock_fails_is_not_kept(pg_url: str) -> None:
    pool = LockConnections(lambda: connect(pg_url))
    conn, taken = pool.try_lock(lock_key("req_c"))
    assert taken
    pool.release(conn, lock_key("req_other"))  # not the key it holds: unlock answers false
    assert conn.closed  # closed, and its lock with it: never kept holding one
    # The server drops a closed session's locks when its backend has seen the close, a moment
    # later (under load, after the next try had already come): wait for that, boundedly.
    deadline = time.monotonic() + 10
    while True:
        fresh, taken = pool.try_lock(lock_key("req_c"))
        if taken or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert taken and fresh is not conn
    pool.release(fresh, lock_key("req_c"))


def test_locks_held_at_once_each_have_their_own_connection(pg_url: str) -> None:
    count = 3
    pool = LockConnections(lambda: connect(pg_url))
    held = [pool.try_lock(lock_key(f"req_many_{n}")) for n in range(count)]
    assert all(taken for _, taken in held)
    assert len({id(conn) for conn, _ in held}) == count
    for n, (conn, _) in enumerate(held):
        pool.release(conn, lock_key(f"req_many_{n}"))
