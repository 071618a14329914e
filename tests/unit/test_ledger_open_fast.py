"""Issue 34: a batch's workers each open the ledger, and each write queued in SQLite's busy
handler (which sleeps up to 100 ms between tries). An open of a ledger already at the current
schema runs no schema script, the lock folder is swept once per process, and the writers of
one process queue on one lock per file."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from svc.errors import LedgerDiskError
from svc.store.ledger import Ledger
from svc.store.ledger import sqlite as engine
from svc.store.ledger.locks import STALE_LOCKS_WORTH_A_SWEEP


def _traced(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every statement the ledger's connections run from now on."""
    seen: list[str] = []
    connect = sqlite3.connect

    def traced_connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        db: sqlite3.Connection = connect(*args, **kwargs)
        db.set_trace_callback(seen.append)
        return db

    monkeypatch.setattr(sqlite3, "connect", traced_connect)
    return seen


def test_a_current_ledger_opens_without_its_schema_script(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "ledger.sqlite3"
    seen = _traced(monkeypatch)
    Ledger(path).close()
    assert any("CREATE TABLE IF NOT EXISTS submissions" in s for s in seen)  # a new file
    seen.clear()
    Ledger(path).close()
    assert not any("CREATE" in s or "table_info" in s for s in seen), seen
    assert len(seen) <= 6, seen  # busy timeout, version, WAL, synchronous


def test_an_older_ledger_is_still_migrated_on_open(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    Ledger(path).close()
    db = sqlite3.connect(path)
    db.execute("DROP INDEX authorizations_runner")
    db.execute("PRAGMA user_version = 6")
    db.commit()
    db.close()
    Ledger(path).close()
    db = sqlite3.connect(path)
    names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    version = db.execute("PRAGMA user_version").fetchone()[0]
    db.close()
    assert "authorizations_runner" in names and version == engine.SCHEMA_VERSION


def test_the_lock_folder_is_swept_once_per_process(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    folder = tmp_path / "locks"
    folder.mkdir()
    stale = STALE_LOCKS_WORTH_A_SWEEP + 4
    for n in range(stale):
        (folder / f"{n:032x}.lock").touch()
    Ledger(path).close()
    assert list(folder.iterdir()) == []
    for n in range(stale):  # as if left since: this process never leaves them
        (folder / f"{n:032x}.lock").touch()
    Ledger(path).close()  # a worker's open: no second listing
    assert len(list(folder.iterdir())) == stale


def test_writers_of_one_process_queue_on_one_lock_per_file(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    engine.Database(path).close()
    inside, leave = threading.Event(), threading.Event()
    wrote: list[int] = []

    def hold() -> None:
        first = engine.Database(path)
        with first.write():
            first.execute("INSERT INTO breaker_resets (runner, reset_at) VALUES ('a', 1)")
            inside.set()
            leave.wait(10)
        first.close()

    def autocommit() -> None:  # a single UPDATE outside write(), by another path to the file
        second = engine.Database(tmp_path / "." / "ledger.sqlite3")
        second.execute("UPDATE breaker_resets SET reset_at = 2 WHERE runner = 'a'")
        wrote.append(second.execute("SELECT reset_at FROM breaker_resets").fetchone()[0])
        second.close()

    holder = threading.Thread(target=hold)
    holder.start()
    assert inside.wait(10)
    writer = threading.Thread(target=autocommit)
    writer.start()
    writer.join(0.3)
    assert writer.is_alive() and wrote == []  # waiting on the holder, in this process's lock
    assert engine._writer_lock(path).locked()
    leave.set()
    holder.join(10)
    writer.join(10)
    assert wrote == [2]


def test_a_durable_write_is_on_disk_before_it_returns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The proof's commit: SQLite's NORMAL commit, then an fdatasync of the WAL file it wrote,
    before write() returns (the proof leaves only after)."""
    db = engine.Database(tmp_path / "ledger.sqlite3")
    synced: list[str] = []
    real = os.fdatasync

    def fdatasync(fd: int) -> None:
        synced.append(os.readlink(f"/proc/self/fd/{fd}"))
        real(fd)

    monkeypatch.setattr(os, "fdatasync", fdatasync)
    with db.write():
        db.execute("INSERT INTO breaker_resets (runner, reset_at) VALUES ('a', 1)")
    assert synced == []  # a NORMAL commit: no sync
    with db.write(durable=True):
        db.execute("INSERT INTO breaker_resets (runner, reset_at) VALUES ('b', 1)")
        assert synced == []
    assert synced == [str(os.path.realpath(tmp_path / "ledger.sqlite3")) + "-wal"]
    db.close()


def test_a_failed_sync_fails_every_durable_write_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A disk that refused one fdatasync may have dropped what it could not write and marked it
    clean: a later sync that succeeds would vouch for commits that are not on disk. The first
    failure is the ledger's disk error (exit 9), and so is every durable write after it, from
    any connection of this process to the file, before anything more is committed."""
    path = tmp_path / "ledger.sqlite3"
    first, second = engine.Database(path), engine.Database(path)
    real, calls = os.fdatasync, []

    def fdatasync(fd: int) -> None:
        calls.append(fd)
        if len(calls) == 1:
            raise OSError(5, "Input/output error")
        real(fd)

    monkeypatch.setattr(os, "fdatasync", fdatasync)
    for db, runner in ((first, "a"), (second, "b"), (first, "c")):
        with pytest.raises(LedgerDiskError) as caught, db.write(durable=True):
            db.execute("INSERT INTO breaker_resets (runner, reset_at) VALUES (?, 1)", (runner,))
        assert caught.value.exit_code == 9 and "cannot write the ledger" in caught.value.message
    assert len(calls) == 1  # never synced again: a success would prove nothing
    first.close()
    second.close()


def test_durable_commits_of_one_process_share_a_sync(tmp_path: Path) -> None:
    """Group commit: a commit already covered by another worker's sync needs none of its own;
    one written after that sync began gets its own."""
    shared = engine._shared(tmp_path / "ledger.sqlite3")
    fd = os.open(tmp_path, os.O_RDONLY)
    counted: list[int] = []
    try:
        shared.committed = 3
        real = os.fdatasync
        try:
            os.fdatasync = counted.append  # type: ignore[assignment]
            shared.sync(2, fd)  # covers commits 1 to 3
            shared.sync(1, fd)
            shared.sync(3, fd)
            shared.committed = 4
            shared.sync(4, fd)
        finally:
            os.fdatasync = real
    finally:
        os.close(fd)
    assert counted == [fd, fd]
