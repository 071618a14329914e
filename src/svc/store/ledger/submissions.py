"""The submissions: one row a request id, from its journaling to its outcome."""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

from svc.errors import LedgerUnavailableError
from svc.store.ledger.database import Database, Statement
from svc.store.ledger.rows import PayState, Submission, Written

_COLUMNS = frozenset(f.name for f in fields(Submission))


def _read(row: Any) -> Submission:
    """A row as a Submission, leaving out a column a newer svc added (a shared ledger that
    another runner migrated first must not break this one's `svc tasks`)."""
    return Submission(**{k: v for k, v in dict(row).items() if k in _COLUMNS})


class Submissions:
    def __init__(self, db: Database, runner: str | None = None) -> None:
        self.db = db
        self.runner = runner  # written on every row this process journals

    def get(self, request_id: str) -> Submission | None:
        row = self.db.execute(
            "SELECT * FROM submissions WHERE request_id = ?", (request_id,)
        ).fetchone()
        return _read(row) if row else None

    def accepted_among(self, request_ids: Sequence[str]) -> dict[str, Submission]:
        if not request_ids:
            return {}
        marks = ", ".join("?" for _ in request_ids)  # placeholders only: the ids are parameters
        where = f"status = ? AND task_id IS NOT NULL AND request_id IN ({marks})"
        sql = "SELECT * FROM submissions WHERE " + where  # noqa: S608
        rows = self.db.execute(sql, (PayState.ACCEPTED, *request_ids)).fetchall()
        return {row.request_id: row for row in map(_read, rows)}

    def newest_first(self, *, limit: int | None = None) -> list[Submission]:
        sql = "SELECT * FROM submissions ORDER BY created_at DESC"
        if limit:
            sql += f" LIMIT {int(limit)}"
        return [_read(row) for row in self.db.execute(sql)]

    def count(self, *, since: float | None = None) -> int:
        """How many rows (created at or after `since`): what a cut list is a part of."""
        row = self.db.execute(
            "SELECT COUNT(*) AS n FROM submissions WHERE created_at >= ?", (since or 0.0,)
        ).fetchone()
        return int(row["n"])

    def recent_same_task(self, body: dict[str, Any], since: float) -> list[Submission]:
        """Submissions of this very body (task and e-mail) created since `since`, newest first."""
        rows = self.db.execute(
            "SELECT * FROM submissions WHERE body = ? AND created_at >= ? ORDER BY created_at DESC",
            (json.dumps(body), since),
        )
        return [_read(row) for row in rows]

    def add(
        self, request_id: str, origin: str, email: str, body: dict[str, Any], base_url: str
    ) -> Submission | None:
        """The journaled row (a no-op when the request id has one), in the caller's transaction:
        the row as written, or None when the request id had one (the caller reads that)."""
        now = time.time()
        preview = " ".join(str(body.get("task", "")).split())[:120]
        text = json.dumps(body)
        added = self.db.execute(
            "INSERT INTO submissions (request_id, base_url, origin, email,"
            " task_preview, body, status, created_at, updated_at, runner)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (request_id) DO NOTHING",
            (
                request_id,
                base_url,
                origin,
                email,
                preview,
                text,
                PayState.JOURNALED,
                now,
                now,
                self.runner,
            ),
        )
        if added.rowcount != 1:
            return None
        written: Written = dict.fromkeys(_COLUMNS)  # what the INSERT left NULL
        written.update(
            request_id=request_id, base_url=base_url, origin=origin, email=email,
            task_preview=preview, body=text, status=PayState.JOURNALED, created_at=now,
            updated_at=now, runner=self.runner,
        )  # fmt: skip
        return Submission(**written)

    def set(self, request_id: str, **fields: Any) -> Written:
        """Write `fields` (and the time) into a request's row; returns what it wrote.

        The journal keeps the row it holds the lock for and folds in what each transition
        wrote instead of reading it back, so a transition that found no row must not read as
        written: a row removed meanwhile by a writer that ignores the lock (an older svc's
        `forget`, a person's own SQL) would leave a proof "journaled" with nothing on disk."""
        statement, written = self.update(request_id, **fields)
        check_updated(request_id, self.db.execute(*statement).rowcount)
        return written

    def update(self, request_id: str, **fields: Any) -> tuple[Statement, Written]:
        """`set`'s statement, for a transaction sent whole (`Database.transaction`), and what
        it writes; the transaction's caller checks its row count (`check_updated`)."""
        fields["updated_at"] = time.time()
        cols = ", ".join(f"{name} = ?" for name in fields)
        sql = f"UPDATE submissions SET {cols} WHERE request_id = ?"  # noqa: S608 - names are ours
        return (sql, (*fields.values(), request_id)), fields

    def delete(self, request_id: str) -> None:
        self.db.execute("DELETE FROM submissions WHERE request_id = ?", (request_id,))

    def set_task_state(self, task_id: str, state: str) -> None:
        self.db.execute(
            "UPDATE submissions SET state = ?, updated_at = ? WHERE task_id = ?",
            (state, time.time(), task_id),
        )


def check_updated(request_id: str, rowcount: int) -> None:
    """A transition's UPDATE of the row found it: else the ledger's error (exit 9)."""
    if rowcount == 0:
        raise _row_gone(request_id)


def _row_gone(request_id: str) -> LedgerUnavailableError:
    return LedgerUnavailableError(
        f"the ledger no longer has the row of request {request_id}: something removed it while "
        "this run held the request's lock",
        code="ledger_row_gone",
        hint="nothing more was sent for it from this step on; check what else writes to this "
        "ledger (an older svc, a script), then run the same command again",
    )
