"""Settings a fleet keeps in its shared ledger, so every runner obeys one value (issue 29.8):
today the daily cap, set once with `svc config set daily_cap_usd 90 --fleet`.

Values are kept as the person wrote them (`90`, `none`); what they mean is the settings'
business (`svc.settings.daily_cap`), not the ledger's. The table exists on both engines (one
schema), though only a fleet ledger is read for it.
"""

from __future__ import annotations

import time

from svc.store.ledger.database import Database


class FleetSettings:
    def __init__(self, db: Database, runner: str | None = None) -> None:
        self.db = db
        self.runner = runner  # who set a value last, for whoever wonders why

    def get(self, name: str) -> str | None:
        row = self.db.execute("SELECT value FROM settings WHERE name = ?", (name,)).fetchone()
        return None if row is None else str(row["value"])

    def set(self, name: str, value: str | None) -> None:
        """Write `value` for every runner; None removes it (each runner's own applies)."""
        with self.db.write(durable=True):
            if value is None:
                self.db.execute("DELETE FROM settings WHERE name = ?", (name,))
                return
            self.db.execute(
                "INSERT INTO settings (name, value, updated_at, runner) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (name) DO UPDATE SET value = excluded.value,"
                " updated_at = excluded.updated_at, runner = excluded.runner",
                (name, value, time.time(), self.runner),
            )
