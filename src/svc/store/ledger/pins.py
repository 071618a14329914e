"""What a person decided once and svc holds to: recipients pinned on first use per origin, and
hosts confirmed for links (claim and card pages) an origin hands out."""

from __future__ import annotations

import time

from svc.store.ledger.database import Database


class Pins:
    def __init__(self, db: Database) -> None:
        self.db = db

    def recipient(self, origin: str, network: str, asset: str) -> str | None:
        row = self.db.execute(
            "SELECT pay_to FROM recipients WHERE base_url = ? AND network = ? AND lower(asset) = ?",
            (origin, network, asset.lower()),
        ).fetchone()
        return str(row["pay_to"]) if row else None

    def recipients(self, origin: str) -> list[tuple[str, str]]:
        """(network, pay_to) of every recipient pinned for an origin."""
        rows = self.db.execute(
            "SELECT network, pay_to FROM recipients WHERE base_url = ? ORDER BY network",
            (origin,),
        )
        return [(str(r["network"]), str(r["pay_to"])) for r in rows]

    def pin_recipient(self, origin: str, network: str, asset: str, pay_to: str) -> None:
        with self.db.write():
            self.db.execute(
                "INSERT INTO recipients (base_url, network, asset, pay_to, pinned_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (base_url, network, asset) DO UPDATE SET"
                " pay_to = excluded.pay_to, pinned_at = excluded.pinned_at",
                (origin, network, asset.lower(), pay_to, time.time()),
            )

    def link_host_confirmed(self, origin: str, host: str) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM link_hosts WHERE origin = ? AND host = ?", (origin, host)
        ).fetchone()
        return row is not None

    def confirm_link_host(self, origin: str, host: str) -> None:
        with self.db.write():
            self.db.execute(
                "INSERT INTO link_hosts (origin, host, confirmed_at) VALUES (?, ?, ?)"
                " ON CONFLICT (origin, host) DO NOTHING",
                (origin, host, time.time()),
            )
