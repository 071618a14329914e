"""Settings a fleet keeps in its shared ledger, so every runner obeys one value:
today the daily cap, set once with `svc config set daily_cap_usd 90 --fleet`.

Values are kept as the person wrote them (`90`, `none`); what they mean is the settings'
business (`svc.settings.daily_cap`), not the ledger's. The table exists on both engines (one
schema), though only a fleet ledger is read for it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from svc.store.ledger.database import Database

FLEET = "fleet ledger"  # the source of a value read from the fleet's ledger


@dataclass(frozen=True)
class AppliedCap:
    """The daily cap a hold was checked against, and where it came from (the refusal's words)."""

    atomic: int | None  # None: no cap
    source: str  # FLEET, or where the runner's own value came from


@dataclass
class CapRule:
    """How a hold finds the daily cap: read at the hold itself, so a long-lived runner never
    pays under a value the fleet's operator has since changed (cli-contract: one value).

    On a fleet (`fleet_key` set) the value stored under that key wins, read in the hold's own
    transaction; else this runner's own. `seen` is the stored text as this process last read
    it: the one-script hold assumes it and holds nothing if the store differs, and the serial
    fall-back reads it afresh and updates `seen` (a stale guess costs a round trip, never a
    payment under the wrong cap). Shared by a process's threads: a plain attribute swap."""

    own_atomic: int | None
    own_source: str
    fleet_key: str | None = None
    read: Callable[[str], int | None] | None = None  # stored text -> atomic cap; may refuse
    seen: str | None = None

    @classmethod
    def fixed(cls, cap_atomic: int | None) -> CapRule:
        """A cap given as a number (a caller with no fleet): no store to read."""
        return cls(cap_atomic, "argument")

    @property
    def may_cap(self) -> bool:
        """Whether a hold must be checked: a fleet may set a cap at any moment."""
        return self.fleet_key is not None or self.own_atomic is not None

    def applied(self, stored: str | None) -> AppliedCap:
        """The cap in effect when the fleet's stored text is `stored`."""
        if self.fleet_key is None or stored is None or self.read is None:
            return AppliedCap(self.own_atomic, self.own_source)
        return AppliedCap(self.read(stored), FLEET)

    def current(self, db: Database) -> AppliedCap:
        """Read now (inside the caller's serial transaction: the value the hold obeys)."""
        if self.fleet_key is None:
            return self.applied(None)
        stored = FleetSettings(db).get(self.fleet_key)
        applied = self.applied(stored)  # one that does not read as a cap refuses (exit 2)...
        self.seen = stored  # ...and is never assumed by a later one-script hold
        return applied


class CapReached(Exception):
    """A hold refused by the daily cap: the exposure already there, and the cap applied."""

    def __init__(self, exposure_atomic: int, cap: AppliedCap) -> None:
        super().__init__(f"daily cap {cap.atomic} ({cap.source}) reached at {exposure_atomic}")
        self.exposure_atomic = exposure_atomic
        self.cap = cap


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
