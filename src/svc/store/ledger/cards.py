"""Card payments waiting for a person, and what became of them."""

from __future__ import annotations

import time
from typing import Any

from svc.store.ledger.database import Database, Statement
from svc.store.ledger.rows import CardState


class Cards:
    def __init__(self, db: Database) -> None:
        self.db = db

    def started(
        self,
        request_id: str,
        *,
        payment_id: str,
        pay_url: str,
        status_url: str,
        checkout_url: str | None,
        amount_atomic: int,
    ) -> Statement:
        """A hosted page is started: the statement, for the caller's transaction."""
        now = time.time()
        return (
            "INSERT INTO card_payments (request_id, payment_id, pay_url,"
            " status_url, checkout_url, amount_atomic, status, created_at, updated_at)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (request_id) DO UPDATE SET"
            " payment_id = excluded.payment_id, pay_url = excluded.pay_url,"
            " status_url = excluded.status_url, checkout_url = excluded.checkout_url,"
            " amount_atomic = excluded.amount_atomic, status = excluded.status,"
            " created_at = excluded.created_at, updated_at = excluded.updated_at",
            (
                request_id,
                payment_id,
                pay_url,
                status_url,
                checkout_url,
                amount_atomic,
                CardState.PENDING,
                now,
                now,
            ),
        )

    def set_status(self, request_id: str, status: CardState) -> None:
        self.db.execute(*self.status(request_id, status))

    def status(self, request_id: str, status: CardState) -> Statement:
        """`set_status`'s statement, for a transaction sent whole."""
        return (
            "UPDATE card_payments SET status = ?, updated_at = ? WHERE request_id = ?",
            (status, time.time(), request_id),
        )

    def get(self, request_id: str | None = None) -> dict[str, Any] | None:
        """A request's card payment, or (no id) the latest one still waiting for a person."""
        if request_id is not None:
            row = self.db.execute(
                "SELECT * FROM card_payments WHERE request_id = ?", (request_id,)
            ).fetchone()
        else:
            row = self.db.execute(
                "SELECT * FROM card_payments WHERE status = ? ORDER BY updated_at DESC LIMIT 1",
                (CardState.PENDING,),
            ).fetchone()
        return dict(row) if row else None
