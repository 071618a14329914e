"""One entry of an export: a charge or a refund, as `engines/export` reads it from the ledger
and every writer of `engines/export_formats` takes it (its own module, so neither imports the
other)."""

from __future__ import annotations

from dataclasses import dataclass

from svc.store.spend import day_of


@dataclass(frozen=True)
class Entry:
    """One charge (a positive amount) or refund (negative): what left, or came back."""

    kind: str  # "charge" | "refund"
    at: float
    rail: str
    amount_atomic: int
    request_id: str
    task_id: str | None
    reference: str | None  # the rail's settlement reference (svc.engines.settlement)
    payment_id: str | None
    runner: str | None
    payer: str | None
    recipient: str | None
    network: str | None
    asset: str | None
    task: str  # the task's text as journaled (outside text: each writer escapes it)

    @property
    def day(self) -> str:
        return day_of(self.at)
