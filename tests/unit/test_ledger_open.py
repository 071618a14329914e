"""Opening a fresh ledger from many threads at once (a batch's workers, two `svc` processes):
SQLite does not wait for the lock that switching to WAL needs, so the open retries instead of
failing a paid line with "database is locked" (seen in CI: one batch line of three failed)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from svc.store.ledger import Ledger

THREADS = 10


def test_concurrent_opens_of_a_fresh_ledger_all_succeed(tmp_path: Path) -> None:
    errors: list[BaseException] = []

    def open_and_close(path: Path, start: threading.Barrier) -> None:
        start.wait()  # all at the same moment: the race the fix is for
        try:
            Ledger(path).close()
        except BaseException as exc:
            errors.append(exc)

    for trial in range(60):  # before the fix, most runs of this test failed
        path = tmp_path / f"ledger-{trial}.sqlite3"
        start = threading.Barrier(THREADS)
        threads = [
            threading.Thread(target=open_and_close, args=(path, start)) for _ in range(THREADS)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == []
    mode = sqlite3.connect(tmp_path / "ledger-0.sqlite3").execute("PRAGMA journal_mode")
    assert mode.fetchone()[0] == "wal"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql:///postgres", "postgresql:///postgres"),  # was `postgresql:/postgres`
        ("postgresql:///svc?host=/run/pg&user=me", "postgresql:///svc?host=/run/pg&user=me"),
        ("postgresql://me:s3cret@db:5432/svc", "postgresql://me:***@db:5432/svc"),
        ("postgresql://db/svc?password=s3cret&x=1", "postgresql://db/svc?password=***&x=1"),
        ("postgres://me:p@ss@db/svc#frag", "postgres://me:***@db/svc#frag"),
    ],
)
def test_the_ledger_url_is_shown_as_configured_with_its_password_masked(
    url: str, shown: str
) -> None:
    """Issue 30.6: doctor's ledger line printed `postgresql:/postgres`."""
    from svc.store.ledger.postgres import redacted

    assert redacted(url) == shown
