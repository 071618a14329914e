"""A Ctrl-C while the fleet ledger waits for the server: the statement is cancelled in the
server (psycopg cancels it), its answer read to the end, and the connection goes on, idle:
never left stuck mid-answer, nor closed under the ledger's feet."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from svc.store.ledger import postgres
from svc.store.ledger.postgres import CAP_LOCK, NAMESPACE, PgDatabase


@contextmanager
def _ctrl_c_after(seconds: float) -> Iterator[None]:
    """SIGINT to the main thread itself (a blocking read there is interrupted, as a person's
    Ctrl-C interrupts it), `seconds` from now."""
    main = threading.main_thread().ident
    assert main is not None
    timer = threading.Timer(seconds, signal.pthread_kill, (main, signal.SIGINT))
    timer.start()
    started = time.monotonic()
    try:
        with pytest.raises(KeyboardInterrupt):
            yield
    finally:
        timer.cancel()
    assert time.monotonic() - started < 5  # cancelled, not waited out


def test_a_ctrl_c_mid_statement_cancels_it_and_the_connection_goes_on(pg_url: str) -> None:
    conn = postgres.connect(pg_url)
    try:
        with _ctrl_c_after(0.3):
            conn.execute("SELECT pg_sleep(30)")
        assert not conn.closed and conn.idle
        assert conn.execute("SELECT 1").fetchone()[0] == 1
    finally:
        conn.close()


def test_a_ctrl_c_waiting_for_the_caps_lock_leaves_the_ledger_usable(pg_url: str) -> None:
    db = PgDatabase(pg_url)
    other = postgres.connect(pg_url)
    try:
        other.execute("SELECT pg_advisory_lock(%s, %s)", (NAMESPACE, CAP_LOCK))
        with _ctrl_c_after(0.3), db.write(serial=True):
            pytest.fail("the cap's lock was held by another session")
        assert db._conn.idle and not db._conn.closed
        other.execute("SELECT pg_advisory_unlock(%s, %s)", (NAMESPACE, CAP_LOCK))
        with db.write(serial=True):
            assert db.execute("SELECT 2").fetchone()[0] == 2
    finally:
        db.close()
        other.close()
