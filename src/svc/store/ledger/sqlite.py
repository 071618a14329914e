"""The SQLite engine under the local ledger: one file, its schema and its transactions.

SQLite in WAL mode with a busy timeout: several `svc` processes may write at once.

Durability is chosen per write. The writes that hold money, a signed proof and a card payment
id, are durable commits (`synchronous = FULL`: the WAL is fsynced, and with it every commit
before it, so the journaled row and a recipient pin are on disk before any proof exists). Every
other commit is NORMAL: it survives a crash of the process, and at worst a power cut forgets it,
which leaves the row at an earlier state whose resume re-sends the same journaled proof (the
service answers a repeated request id with the original task); a row forgotten before its
proof was signed cost nothing. An fsync is what a paid request costs the client most.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from svc.errors import LedgerDiskError
from svc.origin import origin_of
from svc.store.disk import ledger_unwritable
from svc.store.ledger.database import Step, one_by_one
from svc.store.ledger.rows import LEGACY_STATUS
from svc.store.paths import ensure_private_dir, ledger_path

SCHEMA = """
CREATE TABLE IF NOT EXISTS submissions (
    request_id   TEXT PRIMARY KEY,
    base_url     TEXT NOT NULL,
    email        TEXT NOT NULL,
    task_preview TEXT NOT NULL,
    body         TEXT NOT NULL,
    method       TEXT,
    status       TEXT NOT NULL,
    proof        TEXT,
    amount_atomic INTEGER,
    pay_to       TEXT,
    payer        TEXT,
    network      TEXT,
    asset        TEXT,
    task_id      TEXT,
    state        TEXT,
    http_status  INTEGER,
    billing      TEXT,
    error        TEXT,
    created_at   REAL NOT NULL,
    updated_at   REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS submissions_task ON submissions(task_id);
CREATE INDEX IF NOT EXISTS submissions_created ON submissions(created_at);
CREATE INDEX IF NOT EXISTS submissions_open ON submissions(status)
    WHERE status IN ('unknown', 'awaiting_card');
CREATE TABLE IF NOT EXISTS recipients (
    base_url   TEXT NOT NULL,
    network    TEXT NOT NULL,
    asset      TEXT NOT NULL,
    pay_to     TEXT NOT NULL,
    pinned_at  REAL NOT NULL,
    PRIMARY KEY (base_url, network, asset)
);
CREATE TABLE IF NOT EXISTS link_hosts (
    origin       TEXT NOT NULL,
    host         TEXT NOT NULL,
    confirmed_at REAL NOT NULL,
    PRIMARY KEY (origin, host)
);
CREATE TABLE IF NOT EXISTS card_payments (
    request_id   TEXT PRIMARY KEY,
    payment_id   TEXT NOT NULL,
    pay_url      TEXT NOT NULL,
    status_url   TEXT NOT NULL,
    checkout_url TEXT,
    amount_atomic INTEGER NOT NULL,
    status       TEXT NOT NULL,
    created_at   REAL NOT NULL,
    updated_at   REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS authorizations (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    request_id    TEXT NOT NULL,
    rail          TEXT NOT NULL,
    amount_atomic INTEGER NOT NULL,
    origin        TEXT NOT NULL,
    signed_at     REAL NOT NULL,
    valid_before  REAL,
    fingerprint   TEXT,
    pay_to        TEXT,
    network       TEXT,
    status        TEXT NOT NULL,
    refunded_atomic INTEGER NOT NULL DEFAULT 0,
    updated_at    REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS authorizations_request ON authorizations(request_id);
CREATE INDEX IF NOT EXISTS authorizations_signed ON authorizations(signed_at);
CREATE TABLE IF NOT EXISTS settings (
    name       TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    updated_at REAL NOT NULL,
    runner     TEXT
);
CREATE TABLE IF NOT EXISTS budgets (
    scope        TEXT NOT NULL,
    name         TEXT NOT NULL,
    window_name  TEXT NOT NULL,
    limit_atomic INTEGER NOT NULL,
    warned_start REAL,
    updated_at   REAL NOT NULL,
    runner       TEXT,
    PRIMARY KEY (scope, name, window_name)
);
CREATE TABLE IF NOT EXISTS breaker_resets (
    runner   TEXT PRIMARY KEY,
    reset_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS mcp_tasks (
    task_id         TEXT PRIMARY KEY,
    service_task_id TEXT NOT NULL,
    request_id      TEXT,
    tool            TEXT NOT NULL,
    base_url        TEXT NOT NULL,
    status          TEXT NOT NULL,
    status_message  TEXT,
    input_key       TEXT,
    input_ask       TEXT,
    asked           INTEGER NOT NULL DEFAULT 0,
    submitted       TEXT,
    result          TEXT,
    ttl_ms          INTEGER,
    created_at      REAL NOT NULL,
    updated_at      REAL NOT NULL
);
"""

# Columns added after the first release; added to older ledgers on open (ALTER is guarded),
# on both engines (postgres.py adds them too): a new column goes here, and SCHEMA_VERSION up.
# A new table goes in SCHEMA (CREATE TABLE IF NOT EXISTS runs on every open of an older
# ledger, and on PostgreSQL whenever its version is behind), and SCHEMA_VERSION up.
MIGRATIONS: dict[tuple[str, str], str] = {
    ("submissions", "receipt"): "TEXT",  # the rail's receipt (Payment-Receipt, PAYMENT-RESPONSE)
    ("submissions", "usage_error"): "TEXT",  # svc-usage-error: served but not billed
    ("submissions", "refunded_atomic"): "INTEGER",  # µUSD refunded (svc-billing refunded)
    ("submissions", "origin"): "TEXT",  # the normalised origin the request is bound to
    ("submissions", "proof_fp"): "TEXT",  # the live proof's fingerprint (MPP's is a secret)
    ("submissions", "runner"): "TEXT",  # who journaled it (fleet mode: one ledger, many)
    ("authorizations", "runner"): "TEXT",  # who holds it
    ("submissions", "error_detail"): "TEXT",  # why it was refused, in words (`svc tasks`)
    ("authorizations", "profile"): "TEXT",  # the profile that paid (a budget's scope)
    ("authorizations", "session"): "TEXT",  # the svc mcp session that paid (a budget's scope)
}

# Indexes on columns that MIGRATIONS adds: made after them on both engines (an old ledger
# has not the column when SCHEMA runs).
# authorizations_runner: the breaker's and the rate's reads are a range of one runner's last
# hour, whatever the ledger's age.
LATE_INDEXES = (
    "CREATE INDEX IF NOT EXISTS authorizations_runner ON authorizations(runner, signed_at)",
)

# The schema's version, as `svc doctor` reports it (both engines keep the same number).
# 4: the `settings` table (a fleet's shared daily cap).
# 5: submissions.error_detail (a refusal's words for `svc tasks`).
# 6: submissions indexed by created_at, and the few with an open outcome by status: `svc
#    spend` and the paid submit's same-task check read a window, never the whole history
#   . The status index is partial: a whole one led SQLite's planner to walk
#    every accepted row for a window's sums instead of the window.
# 7: budgets and breaker_resets; authorizations carry profile and session, the
#    scopes a budget filters on, and are indexed by runner for the breaker and the rate.
# 8: mcp_tasks, the handles `svc mcp` gives MCP Tasks clients (task_handles.py).
SCHEMA_VERSION = 8


WAL_SWITCH_SECONDS = 30.0  # as busy_timeout: how long an open waits for another to finish


# What the connections of this process to one ledger file share (a batch's workers each hold
# their own connection): the writers' lock and the WAL's group sync.
class _SharedFile:
    def __init__(self) -> None:
        # SQLite's busy handler waits for its write lock by sleeping 1, 2, 5 ... up to 100 ms
        # between tries, so eight threads queueing on it six times per paid request slept most
        # of a batch away (half the threads' time); a thread waiting here is woken the
        # moment the writer before it commits. Other processes still meet at SQLite's own lock.
        self.writer = threading.Lock()
        self._syncing = threading.Lock()  # one fdatasync of the WAL at a time
        self.committed = 0  # commits of this process, counted (under `writer`) once written
        self._synced = 0  # every commit up to this count is on disk
        # A failed fdatasync is for good: Linux may mark the pages it could not write clean,
        # so a later sync that succeeds proves nothing about the commits before it.
        self._failed: OSError | None = None

    def sync(self, ticket: int, wal: int) -> None:
        """Make commit number `ticket` durable: one fdatasync of the WAL covers every commit
        written before it, so workers that commit while another syncs share its sync (group
        commit) instead of queueing one fsync each behind the write lock."""
        with self._syncing:
            if self._failed is not None:
                raise self._failed
            if self._synced >= ticket:
                return
            covered = self.committed  # written (COMMIT returned) before this sync starts
            try:
                os.fdatasync(wal)
            except OSError as exc:
                self._failed = exc
                raise
            self._synced = max(self._synced, covered)


_FILES: dict[str, _SharedFile] = {}
_FILES_GUARD = threading.Lock()
_WRITE_VERBS = ("INSERT", "UPDATE", "DELETE")  # a statement that takes the write lock


def _shared(path: Path) -> _SharedFile:
    key = os.path.realpath(path)
    with _FILES_GUARD:
        return _FILES.setdefault(key, _SharedFile())


def _writer_lock(path: Path) -> threading.Lock:
    return _shared(path).writer


class Database:
    """The ledger file: opened private, in WAL mode, at the newest schema. The concern modules
    (submissions, authorizations, cards, pins) share one and write through `write()`."""

    def __init__(self, path: Path | None = None) -> None:
        self.path: Path = path or ledger_path()
        self.unwritable: LedgerDiskError | None = None  # set when opened to read only
        self._file = _shared(self.path)
        self._writer = self._file.writer
        self._wal: int | None = None  # the WAL, opened at the first durable write
        try:
            self._db = self._open()
        except (OSError, sqlite3.Error, LedgerDiskError) as exc:
            if not is_disk_error(exc):
                raise
            self._db = self._open_to_read(exc)

    def _open(self) -> sqlite3.Connection:
        ensure_private_dir(self.path.parent)
        fresh = not self.path.exists()
        self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            if fresh:
                self.path.chmod(0o600)
            self._db.row_factory = sqlite3.Row
            self._db.execute("PRAGMA busy_timeout = 30000")
            self._enable_wal()
            self._db.execute("PRAGMA synchronous = NORMAL")
            if fresh or self.schema_version() != SCHEMA_VERSION:
                self._db.executescript(SCHEMA)  # every table and index: a dozen statements
                self._migrate()
        except BaseException:
            self._db.close()
            raise
        return self._db

    def _open_to_read(self, why: BaseException) -> sqlite3.Connection:
        """The file as it is, to read, when it cannot be written: a read-only mount still
        answers `svc spend`. WAL reads need the `-shm` file writable; failing that the file
        alone is read (immutable), which misses only commits still in the WAL."""
        from urllib.parse import quote

        self.unwritable = (
            why if isinstance(why, LedgerDiskError) else ledger_unwritable(self.path, why)
        )
        if not self.path.exists():
            raise self.unwritable from None
        for query in ("mode=ro", "mode=ro&immutable=1"):
            db = sqlite3.connect(f"file:{quote(str(self.path))}?{query}", uri=True)
            db.row_factory = sqlite3.Row
            try:
                db.execute("SELECT 1 FROM submissions LIMIT 1").fetchall()
            except sqlite3.Error:
                db.close()
                continue
            return db
        raise self.unwritable from None

    def execute(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        if not self._db.in_transaction and sql.startswith(_WRITE_VERBS):
            with self._writer:  # a write of its own (autocommit): queued with this process's
                return self._execute(sql, params)
        return self._execute(sql, params)

    def _execute(self, sql: str, params: tuple[Any, ...]) -> sqlite3.Cursor:
        try:
            return self._db.execute(sql, params)
        except sqlite3.Error as exc:
            if not is_disk_error(exc):
                raise
            raise self._lost(exc) from None

    def _lost(self, exc: BaseException) -> LedgerDiskError:
        """The error a failed statement means: the reason it was opened read-only, if it was."""
        return self.unwritable or ledger_unwritable(self.path, exc)

    def close(self) -> None:
        self._db.close()
        if self._wal is not None:
            self._close_wal.detach()
            os.close(self._wal)
            self._wal = None

    def integrity(self) -> str:
        """SQLite's own check of the file ("ok" when sound): for doctor-style checks and tests."""
        return str(self._db.execute("PRAGMA integrity_check").fetchone()[0])

    def _enable_wal(self) -> None:
        """WAL mode (set once per file, then a no-op). Switching a fresh file needs an
        exclusive lock and SQLite gives up at once instead of calling the busy handler, so
        threads or processes opening a new ledger together (a batch's workers) retry here."""
        deadline = time.monotonic() + WAL_SWITCH_SECONDS
        delay = 0.005
        while True:
            try:
                self._db.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
            time.sleep(delay)
            delay = min(delay * 2, 0.2)

    def _migrate(self) -> None:
        for (table, name), kind in MIGRATIONS.items():
            have = {row["name"] for row in self._db.execute(f"PRAGMA table_info({table})")}
            if name in have:
                continue
            try:
                self._db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")
            except sqlite3.OperationalError as exc:  # another process added it first
                if "duplicate column" not in str(exc):
                    raise
        for statement in LATE_INDEXES:
            self._db.execute(statement)
        version = self.schema_version()
        if version < 2:
            self._migrate_names()
        if version < SCHEMA_VERSION:
            self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def schema_version(self) -> int:
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def describe(self) -> str:
        return f"SQLite {sqlite3.sqlite_version} at {self.path}"

    def floor(self, expression: str) -> str:
        """SQL for the integer floor of a non-negative number (a cast truncates: the same)."""
        return f"CAST({expression} AS INTEGER)"

    def missing_rights(self) -> list[str]:
        import os

        return [] if os.access(self.path, os.R_OK | os.W_OK) else [f"{self.path}: read-write"]

    def unwritable_reason(self) -> str | None:
        return None if self.unwritable is None else self.unwritable.message

    def _migrate_names(self) -> None:
        """Ledgers of the first release: old status names, pins keyed by base-URL text."""

        with self.write():
            for old, new in LEGACY_STATUS.items():
                self._db.execute("UPDATE submissions SET status = ? WHERE status = ?", (new, old))
            self._db.execute(
                "UPDATE submissions SET status = 'challenged'"
                " WHERE status = 'sent' AND proof IS NULL"
            )
            for row in self._db.execute("SELECT request_id, base_url FROM submissions").fetchall():
                self._db.execute(
                    "UPDATE submissions SET origin = COALESCE(origin, ?) WHERE request_id = ?",
                    (origin_of(row["base_url"]), row["request_id"]),
                )
            for row in self._db.execute("SELECT rowid, base_url FROM recipients").fetchall():
                self._db.execute(
                    "UPDATE OR IGNORE recipients SET base_url = ? WHERE rowid = ?",
                    (origin_of(row["base_url"]), row["rowid"]),
                )
            self._db.execute("PRAGMA user_version = 2")

    @contextmanager
    def write(self, *, durable: bool = False, serial: bool = False) -> Iterator[None]:
        """One IMMEDIATE transaction: a check and the write it allows cannot interleave.

        `durable` fsyncs the commit (and every NORMAL commit before it, which share the WAL)
        before it returns; `serial` asks that no other such transaction run beside it: SQLite
        has one writer at a time anyway. A commit the disk refuses is rolled back and raised as
        LedgerDiskError."""
        if self.unwritable is not None:
            raise self.unwritable
        wal = self._opened_wal() if durable else None
        with self._writer:  # this process's writers queue here, not in SQLite's busy sleeps
            full = durable and wal is None  # no WAL file to sync: SQLite's own FULL commit
            if full:
                self.execute("PRAGMA synchronous = FULL")
            try:
                try:  # BEGIN inside: a signal right after it still rolls the transaction back
                    self.execute("BEGIN IMMEDIATE")
                    yield
                    self.execute("COMMIT")
                except BaseException:
                    self._roll_back()
                    raise
            finally:
                if full:
                    with contextlib.suppress(sqlite3.Error):  # a pragma: nothing to write
                        self._db.execute("PRAGMA synchronous = NORMAL")
            self._file.committed += 1
            ticket = self._file.committed
        if wal is not None:
            self._sync(ticket, wal)

    def transaction(
        self, steps: Sequence[Step], *, durable: bool = False, required: int | None = None
    ) -> list[int]:
        """`steps` in one `write` (the same statements, commit and sync as the transitions ran
        before there was this method); each one's row count."""
        if self._db.in_transaction:  # part of the caller's transaction
            return one_by_one(self.execute, steps, required)
        with self.write(durable=durable):
            return one_by_one(self.execute, steps, required)

    def _sync(self, ticket: int, wal: int) -> None:
        """The commit on disk before the caller goes on (a proof leaves only after this).

        A NORMAL commit in WAL mode has written its frames to the WAL file; an fdatasync of
        that file is what SQLite's FULL commit adds, and outside the write lock the commits of
        the other workers share it. Our connection keeps the WAL file from being removed or
        replaced (SQLite removes it when the last connection closes), so this descriptor names
        the file the frames are in; a checkpoint in between has synced them already."""
        try:
            self._file.sync(ticket, wal)
        except OSError as exc:
            self.unwritable = self._lost(exc)  # nothing more is written through this file
            raise self.unwritable from None

    def _opened_wal(self) -> int | None:
        """The WAL file of our connection, opened once (None: none to sync, not in WAL mode).
        Its directory is synced once too: SQLite's first FULL sync of a new WAL did that."""
        if self._wal is None:
            real = os.path.realpath(self.path)
            try:
                fd = os.open(real + "-wal", os.O_RDONLY | os.O_CLOEXEC)
            except FileNotFoundError:
                return None
            except OSError as exc:
                raise self._lost(exc) from None
            self._close_wal = weakref.finalize(self, os.close, fd)  # a connection left to gc
            self._wal = fd
            self._sync_directory(os.path.dirname(real))
        return self._wal

    def _sync_directory(self, folder: str) -> None:
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_CLOEXEC)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            raise self._lost(exc) from None

    def _roll_back(self) -> None:
        """Undo an open transaction; on a failing disk the rollback may fail too, and the
        error that stopped the transaction is the one worth telling."""
        if self._db.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")


# SQLite's result codes that mean the file or its disk, not svc's SQL (a typo in a statement
# stays an internal error, as it should).
DISK_CODES = (
    "SQLITE_FULL",
    "SQLITE_IOERR",
    "SQLITE_READONLY",
    "SQLITE_CANTOPEN",
    "SQLITE_BUSY",
    "SQLITE_LOCKED",
    "SQLITE_CORRUPT",
    "SQLITE_NOTADB",
    "SQLITE_PERM",
    "SQLITE_PROTOCOL",
    "SQLITE_NOLFS",
)


def is_disk_error(exc: BaseException) -> bool:
    if isinstance(exc, OSError | LedgerDiskError):
        return True
    name = getattr(exc, "sqlite_errorname", None)
    return isinstance(exc, sqlite3.Error) and str(name or "").startswith(DISK_CODES)
