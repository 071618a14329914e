"""Opening a fresh ledger from many threads at once (a batch's workers, two `svc` processes):
SQLite does not wait for the lock that switching to WAL needs, so the open retries instead of
failing a paid line with "database is locked" (seen in CI: one batch line of three failed)."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

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
