"""Reads of the submissions whose cost is bounded by what they return, for
`svc tasks` with its filters: the WHERE and the LIMIT in SQL, never a read of the whole
history filtered in Python; and whether a polled state is news to the ledger's cache.

Written in the SQL both engines speak, against the ledger's database handle
(`database.Database`); a ledger hands them out as `LedgerStore.bounded()`.

The newest rows walk the `created_at` index backwards and stop at the limit: bounded when the
filter matches often. A state no recent row has makes SQLite walk the index further (an index
on `(state, created_at)` would bound that too: docs/performance.md). A count is capped: past
`COUNT_CAP` rows it says "at least", which a cut list needs, in time bounded by the cap.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from svc.store.ledger.database import Database
from svc.store.ledger.rows import Submission
from svc.store.ledger.submissions import _read

COUNT_CAP = 10_000


@dataclass(frozen=True)
class Filter:
    """Which submissions: of these task states (empty: any), created at or after `since`,
    journaled by `runner` (None: any), older than `before` in the newest-first order (a page's
    cursor: the last row's creation time and request id)."""

    states: tuple[str, ...] = ()
    since: float | None = None
    runner: str | None = None
    before: tuple[float, str] | None = None

    def where(self) -> tuple[str, tuple[Any, ...]]:
        clauses = ["created_at >= ?"]
        params: list[Any] = [self.since or 0.0]
        if self.before is not None:
            at, request_id = self.before
            clauses.append("(created_at < ? OR (created_at = ? AND request_id < ?))")
            params += [at, at, request_id]
        if self.states:
            clauses.append(f"state IN ({', '.join('?' for _ in self.states)})")
            params += self.states
        if self.runner is not None:
            clauses.append("runner = ?")
            params.append(self.runner)
        return " AND ".join(clauses), tuple(params)


class BoundedReads:
    def __init__(self, db: Database) -> None:
        self.db = db

    def newest(self, where: Filter, limit: int | None) -> list[Submission]:
        """The newest rows that match, newest first (`limit` None: all of them)."""
        clause, params = where.where()
        # request id breaks a tie of times: a cursor then lands between any two rows
        order = "ORDER BY created_at DESC, request_id DESC"
        sql = f"SELECT * FROM submissions WHERE {clause} {order}"  # noqa: S608
        if limit:
            sql += f" LIMIT {int(limit)}"
        return [_read(row) for row in self.db.execute(sql, params)]

    def count(self, where: Filter, cap: int = COUNT_CAP) -> tuple[int, bool]:
        """(how many rows match, True) or (`cap`, False) when there are at least that many."""
        clause, params = where.where()
        inner = f"SELECT 1 FROM submissions WHERE {clause} LIMIT {int(cap)}"  # noqa: S608
        sql = f"SELECT COUNT(*) AS n FROM ({inner}) AS capped"  # noqa: S608
        row = self.db.execute(sql, params).fetchone()
        n = int(row["n"])
        return n, n < cap

    def state_is_news(self, task_id: str, state: str) -> bool:
        """Whether a row of the task holds another state than `state` (one index lookup): a
        poll that tells the cache nothing new then writes nothing. A write is a WAL frame, and
        the checkpoint at the close of the process fsyncs the WAL, the file and its folder:
        four fsyncs for a state already known."""
        row = self.db.execute(
            "SELECT 1 FROM submissions WHERE task_id = ? AND (state IS NULL OR state <> ?) LIMIT 1",
            (task_id, state),
        ).fetchone()
        return row is not None
