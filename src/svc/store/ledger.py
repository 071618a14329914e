"""The local ledger: every submission, its idempotency key, payment proof and outcome.

The row for a submission is committed before the request leaves the machine, and the proof is
committed before it is sent, so a crash at any point can be resumed with the same request id
and the same proof: the service then returns the original task and never charges twice.

SQLite in WAL mode with a busy timeout: several `svc` processes may write at once.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from svc.store.paths import data_dir, ensure_private_dir

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
CREATE TABLE IF NOT EXISTS recipients (
    base_url   TEXT NOT NULL,
    network    TEXT NOT NULL,
    asset      TEXT NOT NULL,
    pay_to     TEXT NOT NULL,
    pinned_at  REAL NOT NULL,
    PRIMARY KEY (base_url, network, asset)
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
"""

# Columns added after the first release; added to older ledgers on open (ALTER is guarded).
MIGRATIONS: dict[str, str] = {
    "receipt": "TEXT",  # the rail's receipt header (Payment-Receipt, PAYMENT-RESPONSE)
    "usage_error": "TEXT",  # svc-usage-error: served but not billed
    "refunded_atomic": "INTEGER",  # µUSD refunded (svc-billing status=refunded)
}

# Submission statuses, in the order a submission moves through them.
PREPARED = "prepared"  # row written, nothing sent yet
SENT = "sent"  # request sent without proof (expecting a 402)
PAYING = "paying"  # proof signed and journaled, being sent
ACCEPTED = "accepted"  # the service answered 202 with a task
REJECTED = "rejected"  # the service refused; nothing was charged
UNKNOWN = "unknown"  # a paid request's answer was lost
RESERVING = "reserving"  # the policy reserved the amount against the daily cap; not yet signed
AWAITING_CARD = "awaiting_card"  # a card payment was started and waits for a person
REFUNDED = "refunded"  # charged, then refunded in full (the service could not deliver)

# Rows whose amount counts against the daily cap (may have been, or will be, charged).
SPENDING = (RESERVING, PAYING, ACCEPTED, UNKNOWN, AWAITING_CARD)


@dataclass
class Submission:
    request_id: str
    base_url: str
    email: str
    task_preview: str
    body: str
    method: str | None
    status: str
    proof: str | None
    amount_atomic: int | None
    pay_to: str | None
    payer: str | None
    network: str | None
    asset: str | None
    task_id: str | None
    state: str | None
    http_status: int | None
    billing: str | None
    error: str | None
    created_at: float
    updated_at: float
    receipt: str | None = None
    usage_error: str | None = None
    refunded_atomic: int | None = None

    @property
    def paid(self) -> bool:
        return self.status == ACCEPTED and bool(self.proof)

    def public_dict(self) -> dict[str, Any]:
        """The row as shown to users: everything but the proof and the body."""
        doc = {k: v for k, v in self.__dict__.items() if k not in ("proof", "body", "receipt")}
        doc["has_proof"] = bool(self.proof)
        return doc


def ledger_path() -> Path:
    return data_dir() / "ledger.sqlite3"


class Ledger:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or ledger_path()
        ensure_private_dir(self.path.parent)
        fresh = not self.path.exists()
        self._db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        if fresh:
            self.path.chmod(0o600)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA busy_timeout = 30000")
        self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute("PRAGMA synchronous = FULL")
        self._db.executescript(SCHEMA)
        self._migrate()

    def _migrate(self) -> None:
        have = {row["name"] for row in self._db.execute("PRAGMA table_info(submissions)")}
        for name, kind in MIGRATIONS.items():
            if name in have:
                continue
            try:
                self._db.execute(f"ALTER TABLE submissions ADD COLUMN {name} {kind}")
            except sqlite3.OperationalError as exc:  # another process added it first
                if "duplicate column" not in str(exc):
                    raise

    def close(self) -> None:
        self._db.close()

    # --- submissions -------------------------------------------------------------------------

    def create_submission(
        self, request_id: str, base_url: str, email: str, body: dict[str, Any]
    ) -> Submission:
        """Journal a submission before its first byte is sent. Idempotent per request id."""
        now = time.time()
        preview = " ".join(str(body.get("task", "")).split())[:120]
        self._db.execute(
            "INSERT OR IGNORE INTO submissions (request_id, base_url, email, task_preview, body,"
            " status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (request_id, base_url, email, preview, json.dumps(body), PREPARED, now, now),
        )
        found = self.get(request_id)
        assert found is not None
        return found

    def get(self, request_id: str) -> Submission | None:
        row = self._db.execute(
            "SELECT * FROM submissions WHERE request_id = ?", (request_id,)
        ).fetchone()
        return Submission(**dict(row)) if row else None

    def update(self, request_id: str, **fields: Any) -> None:
        if not fields:
            return
        fields["updated_at"] = time.time()
        cols = ", ".join(f"{name} = ?" for name in fields)
        self._db.execute(
            f"UPDATE submissions SET {cols} WHERE request_id = ?",  # noqa: S608 - names are ours
            (*fields.values(), request_id),
        )

    def record_proof(
        self,
        request_id: str,
        *,
        method: str,
        proof: str,
        amount_atomic: int,
        pay_to: str,
        payer: str,
        network: str,
        asset: str,
    ) -> None:
        """Journal a signed proof before it is sent, so every retry re-sends this one."""
        self.update(
            request_id,
            method=method,
            proof=proof,
            amount_atomic=amount_atomic,
            pay_to=pay_to,
            payer=payer,
            network=network,
            asset=asset,
            status=PAYING,
        )

    def forget_proof(self, request_id: str, error: str) -> None:
        """A proof the service refused (settlement failed): it can never be charged."""
        self.update(request_id, proof=None, status=REJECTED, error=error)

    def reserve_daily(
        self, request_id: str, method: str, amount_atomic: int, cap_atomic: int, since: float
    ) -> int | None:
        """Reserve `amount_atomic` for this request against a daily cap, atomically.

        Returns None when reserved, else what was already spent since `since` (the cap would be
        exceeded). The check and the write are one IMMEDIATE transaction, so two processes can't
        both squeeze under the cap.
        """
        marks = ", ".join("?" for _ in SPENDING)
        self._db.execute("BEGIN IMMEDIATE")
        try:
            row = self._db.execute(
                "SELECT COALESCE(SUM(amount_atomic - COALESCE(refunded_atomic, 0)), 0) AS spent"  # noqa: S608 - only placeholders are formatted in
                f" FROM submissions WHERE status IN ({marks}) AND created_at >= ?"
                " AND request_id != ? AND amount_atomic IS NOT NULL",
                (*SPENDING, since, request_id),
            ).fetchone()
            spent = int(row["spent"])
            if spent + amount_atomic > cap_atomic:
                self._db.execute("ROLLBACK")
                return spent
            self._db.execute(
                "UPDATE submissions SET status = ?, method = ?, amount_atomic = ?, updated_at = ?"
                " WHERE request_id = ?",
                (RESERVING, method, amount_atomic, time.time(), request_id),
            )
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise
        return None

    # --- card payments waiting for a person ---------------------------------------------------

    def save_card_payment(
        self,
        request_id: str,
        *,
        payment_id: str,
        pay_url: str,
        status_url: str,
        checkout_url: str | None,
        amount_atomic: int,
        status: str,
    ) -> None:
        now = time.time()
        self._db.execute(
            "INSERT OR REPLACE INTO card_payments (request_id, payment_id, pay_url, status_url,"
            " checkout_url, amount_atomic, status, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                request_id,
                payment_id,
                pay_url,
                status_url,
                checkout_url,
                amount_atomic,
                status,
                now,
                now,
            ),
        )

    def card_payment(self, request_id: str | None = None) -> dict[str, Any] | None:
        """A request's card payment, or (no id) the latest one still waiting for a person."""
        if request_id is not None:
            row = self._db.execute(
                "SELECT * FROM card_payments WHERE request_id = ?", (request_id,)
            ).fetchone()
        else:
            row = self._db.execute(
                "SELECT * FROM card_payments WHERE status = 'pending'"
                " ORDER BY updated_at DESC LIMIT 1"
            ).fetchone()
        return dict(row) if row else None

    def set_card_status(self, request_id: str, status: str) -> None:
        self._db.execute(
            "UPDATE card_payments SET status = ?, updated_at = ? WHERE request_id = ?",
            (status, time.time(), request_id),
        )

    def set_task_state(self, task_id: str, state: str) -> None:
        self._db.execute(
            "UPDATE submissions SET state = ?, updated_at = ? WHERE task_id = ?",
            (state, time.time(), task_id),
        )

    def submissions(self, *, limit: int | None = None) -> list[Submission]:
        sql = "SELECT * FROM submissions ORDER BY created_at DESC"
        if limit:
            sql += f" LIMIT {int(limit)}"
        return [Submission(**dict(row)) for row in self._db.execute(sql)]

    def pinned_recipient(self, base_url: str, network: str, asset: str) -> str | None:
        row = self._db.execute(
            "SELECT pay_to FROM recipients WHERE base_url = ? AND network = ? AND lower(asset) = ?",
            (base_url, network, asset.lower()),
        ).fetchone()
        return str(row["pay_to"]) if row else None

    def pin_recipient(self, base_url: str, network: str, asset: str, pay_to: str) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO recipients (base_url, network, asset, pay_to, pinned_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (base_url, network, asset.lower(), pay_to, time.time()),
        )
