"""The books: what a window of the ledger charged and refunded, summed in SQL, and the rows
behind it (`svc spend`, its exports, `svc receipt`).

Every read here is bounded by the rows of its window (the indexes on `created_at` and
`status`), never by the ledger's age: a year of a busy fleet is a million rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from svc.store.ledger.database import Database
from svc.store.ledger.rows import AWAITING_CARD, UNKNOWN, PayState, Submission
from svc.store.ledger.submissions import _read

# A row whose money left: accepted with a proof kept, or refunded (`svc spend` counts these).
CHARGED = (
    "status IN (?, ?) AND amount_atomic > 0 AND COALESCE(method, '') <> ''"
    " AND (status = ? OR COALESCE(proof, '') <> '' OR COALESCE(proof_fp, '') <> '')"
)
CHARGED_PARAMS = (PayState.ACCEPTED, PayState.REFUNDED, PayState.REFUNDED)

# Sums are grouped by quarter hour: every time zone's offset and every DST change is a whole
# quarter hour, so each group lies in one local day, whichever zone the reader is in.
BUCKET_SECONDS = 900


@dataclass(frozen=True)
class SpendGroup:
    """The charges of one quarter hour, rail and runner, summed (amounts in µUSD)."""

    starts_at: float
    rail: str
    runner: str | None
    charges: int
    paid_atomic: int
    refunded_atomic: int
    refunds: int


@dataclass(frozen=True)
class Whose:
    """Whose payments a read keeps: one runner's, one profile's, one wallet's (None: any).
    A submission row names its runner and its payer; the profile that paid is on its
    authorizations, so a profile is matched through them."""

    runner: str | None = None
    profile: str | None = None
    wallet: str | None = None  # the paying address, matched whatever its letters' case

    def sql(self) -> tuple[str, tuple[Any, ...]]:
        """The conditions on a submissions row, each with its parameter ("" if none)."""
        parts: list[str] = []
        params: list[Any] = []
        if self.runner is not None:
            parts.append("runner = ?")
            params.append(self.runner)
        if self.wallet is not None:
            parts.append("LOWER(payer) = ?")
            params.append(self.wallet.lower())
        if self.profile is not None:
            parts.append("request_id IN (SELECT request_id FROM authorizations WHERE profile = ?)")
            params.append(self.profile)
        return "".join(f" AND {part}" for part in parts), tuple(params)


EVERYONE = Whose()


def _window(start: float, end: float | None, whose: Whose) -> tuple[str, tuple[Any, ...]]:
    sql, params = "created_at >= ?", list[Any]([start])
    if end is not None:
        sql += " AND created_at < ?"
        params.append(end)
    kept, kept_params = whose.sql()
    return sql + kept, (*params, *kept_params)


class Books:
    def __init__(self, db: Database) -> None:
        self.db = db

    def sums(self, start: float, end: float | None, whose: Whose) -> list[SpendGroup]:
        where, params = _window(start, end, whose)
        bucket = self.db.floor(f"created_at / {BUCKET_SECONDS}")
        rows = self.db.execute(
            f"SELECT {bucket} AS q, method, runner, COUNT(*) AS n, SUM(amount_atomic) AS paid,"  # noqa: S608 - our SQL
            " SUM(COALESCE(refunded_atomic, 0)) AS refunded,"
            " SUM(CASE WHEN COALESCE(refunded_atomic, 0) <> 0 THEN 1 ELSE 0 END) AS refunds"
            f" FROM submissions WHERE {where} AND {CHARGED} GROUP BY q, method, runner",
            (*params, *CHARGED_PARAMS),
        )
        return [
            SpendGroup(
                float(row["q"]) * BUCKET_SECONDS,
                str(row["method"]),
                row["runner"],
                int(row["n"]),
                int(row["paid"]),
                int(row["refunded"]),
                int(row["refunds"]),
            )
            for row in rows
        ]

    def charges(self, start: float, end: float | None, whose: Whose) -> list[Submission]:
        """The charged rows of the window, newest first."""
        where, params = _window(start, end, whose)
        rows = self.db.execute(
            f"SELECT * FROM submissions WHERE {where} AND {CHARGED}"  # noqa: S608 - our SQL
            " ORDER BY created_at DESC, request_id",
            (*params, *CHARGED_PARAMS),
        )
        return [_read(row) for row in rows]

    def open_items(self, whose: Whose) -> list[Submission]:
        """Rows whose money is not settled either way (an unknown outcome, a card page waiting
        for a person), whatever their age: they are what a person must still act on."""
        # The statuses as literals: only then may the engine use the partial index on them.
        sql = f"SELECT * FROM submissions WHERE status IN ('{UNKNOWN}', '{AWAITING_CARD}')"  # noqa: S608
        kept, params = whose.sql()
        rows = self.db.execute(sql + kept + " ORDER BY created_at DESC", params)
        return [_read(row) for row in rows]

    def find(self, task_or_request_id: str) -> Submission | None:
        """The row of a request id, else the newest row of a task id."""
        row = self.db.execute(
            "SELECT * FROM submissions WHERE request_id = ?", (task_or_request_id,)
        ).fetchone()
        if row is None:
            row = self.db.execute(
                "SELECT * FROM submissions WHERE task_id = ? ORDER BY created_at DESC LIMIT 1",
                (task_or_request_id,),
            ).fetchone()
        return _read(row) if row else None
