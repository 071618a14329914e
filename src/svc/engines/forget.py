"""Rows removed from the ledger: `svc tasks forget ID...` and `svc tasks prune --gone|--refused`.

A row that is not money (nothing was signed, paid or possibly charged) is only a note, and a
person may remove it. A row that is money is the record `svc spend` reads: it is removed only
when asked with `force`, and only after the caller said what it paid (`Forgetting.money`
names them before `remove`). The authorizations stay either way: they are what the daily cap
and the outstanding list count, and forgetting a row must never free a cap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from svc.errors import NotFound, UsageError
from svc.money import atomic_for_people
from svc.next_step import step
from svc.store.ledger.rows import GONE, PayState, Submission

if TYPE_CHECKING:
    from svc.context import AppContext
    from svc.store.ledger import LedgerStore


@dataclass
class Forgetting:
    """The rows asked for, split into notes and money, then what was removed."""

    ledger: LedgerStore
    rows: list[Submission]
    removed: list[Submission] = field(default_factory=list)
    kept: list[Submission] = field(default_factory=list)

    @property
    def money(self) -> list[Submission]:
        return [row for row in self.rows if row.money]

    def remove(self, force: bool) -> None:
        """Remove the rows that are not money, and the money ones too with `force`."""
        for row in self.rows:
            if row.money and not force:
                self.kept.append(row)
                continue
            if self.ledger.forget(row.request_id, money_too=force):
                self.removed.append(row)
            else:  # another run made it money since it was read: it stays, as money does
                self.kept.append(row)

    def document(self) -> dict[str, Any]:
        return {
            "forgotten": [_summary(r) for r in self.removed],
            "kept": [_summary(r) for r in self.kept],
        }


def named(app: AppContext, ids: list[str]) -> Forgetting:
    """The rows of these task or request ids; an id the ledger lacks is exit 7 (nothing is
    removed: a typo must not leave half a command done)."""
    ledger = _ledger(app)
    rows = ledger.submissions()
    found: dict[str, Submission] = {}
    for wanted in ids:
        matches = [r for r in rows if wanted in (r.task_id, r.request_id)]
        if not matches:
            raise NotFound(
                f"no row in the ledger for {wanted!r}: nothing was removed",
                code="not_in_ledger",
                next=step("list_ledger"),
            )
        found.update((r.request_id, r) for r in matches)
    return Forgetting(ledger, list(found.values()))


def matching(app: AppContext, *, gone: bool, refused: bool) -> Forgetting:
    """The rows of tasks the service no longer knows (`gone`) or of submits refused before
    anything was sent or paid (`refused`); neither is none."""
    ledger = _ledger(app)
    rows = [
        r
        for r in ledger.submissions()
        if (gone and r.state == GONE)
        or (refused and r.status == PayState.REJECTED and not r.task_id)
    ]
    return Forgetting(ledger, rows)


def refuse_money(rows: list[Submission]) -> UsageError:
    """Exit 2 naming what each row paid: a charge is never forgotten without --force."""
    what = "; ".join(f"{label(r)} {what_it_paid(r)}" for r in rows)
    return UsageError(
        f"not forgetting money: {what}; nothing was removed",
        code="ledger_row_is_money",
        next=step("force_forget"),
    )


def label(row: Submission) -> str:
    return (
        f"task {row.task_id} (request {row.request_id})"
        if row.task_id
        else f"request {row.request_id}"
    )


def what_it_paid(row: Submission) -> str:
    if row.status == PayState.UNKNOWN:
        return "sent a payment whose outcome is unknown"
    if row.status == PayState.AWAITING_CARD:
        return "waits for a card payment"
    if row.amount_atomic:
        by = f" by {row.method}" if row.method else ""
        return f"paid {atomic_for_people(row.amount_atomic)}{by}"
    return "holds a signed payment"


def _summary(row: Submission) -> dict[str, Any]:
    return {
        "request_id": row.request_id,
        "task_id": row.task_id,
        "state": row.state,
        "status": row.status,
        "money": row.money,
    }


def _ledger(app: AppContext) -> LedgerStore:
    ledger = app.ledger_to_read()
    if ledger is None:
        raise NotFound("there is no ledger here yet: nothing to remove", code="not_in_ledger")
    return ledger
