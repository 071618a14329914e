"""What the ledger holds, whatever engine keeps it: the states of a paid request, of a card
payment and of an authorization against the cap, and the rows as read back."""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any

from svc.numbers import iso


class PayState(StrEnum):
    """Where a paid request is in its life. Only the named Ledger transitions set these."""

    JOURNALED = "journaled"  # row written, nothing sent yet
    CHALLENGED = "challenged"  # sent without proof (a 402 expected)
    SIGNED = "signed"  # a proof is signed (or a card paid) and journaled, not yet sent
    SENT = "sent"  # the proof left; waiting for the answer
    ACCEPTED = "accepted"  # the service answered 202 with a task
    REJECTED = "rejected"  # refused before any proof was sent; nothing charged
    REFUSED = "refused"  # a proof was refused in a way that does not void it: it is kept
    UNKNOWN = "unknown"  # a proof was sent and no readable answer came back
    VOID = "void"  # the proof is proven void by the spec's codes; a new one may be signed
    AWAITING_CARD = "awaiting_card"  # a card payment waits for a person
    REFUNDED = "refunded"  # charged, then refunded in full (the service could not deliver)


class CardState(StrEnum):
    PENDING = "pending"  # the hosted page is started; a person has to pay
    COMPLETE = "complete"  # paid; its id is the proof
    USED = "used"  # the request it paid was accepted
    DEAD = "dead"  # failed, cancelled or refunded: can never be spent


class AuthState(StrEnum):
    """One signed authorization's standing against the daily cap (exposure)."""

    RESERVED = "reserved"  # the cap was checked and the amount held; signing follows
    LIVE = "live"  # signed; may still be settled by whoever holds it
    SPENT = "spent"  # accounted as paid (a 202 to the request that carried it)
    REFUSED = "refused"  # the server refused it; an x402 one can still be settled until expiry
    VOID = "void"  # proven void (MPP, card: the spec's codes); no longer counts


# A task state of the ledger's own, never the service's: the service answered 404 for the
# task (it no longer knows it: a sandbox restarted, or it belongs to another agent). A later
# answer about the task writes its real state over it.
GONE = "gone"

# Statuses of ledgers written before the lifecycle had names of its own.
LEGACY_STATUS = {"prepared": "journaled", "paying": "sent", "reserving": "journaled"}

# The columns of a submission's row that one transition wrote, by name: the journal that holds
# the request's lock keeps its row up to date with them instead of reading it back.
Written = dict[str, Any]

# Kept as module names for callers that read rows (svc tasks, spend, watch).
ACCEPTED = PayState.ACCEPTED
UNKNOWN = PayState.UNKNOWN
AWAITING_CARD = PayState.AWAITING_CARD
REFUNDED = PayState.REFUNDED
# Authorizations that count against the cap while unexpired (SPENT counts for the day).
EXPOSED = (AuthState.RESERVED, AuthState.LIVE, AuthState.REFUSED)


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
    origin: str | None = None
    proof_fp: str | None = None
    runner: str | None = None  # the runner that journaled it (its host name by default)
    error_detail: str | None = None  # the refusal's words (`error` is its code)

    @property
    def has_proof(self) -> bool:
        """A live proof is journaled (in the row, or for MPP in the secret store)."""
        return bool(self.proof or self.proof_fp)

    @property
    def paid(self) -> bool:
        return self.status == PayState.ACCEPTED and self.has_proof

    @property
    def paid_for(self) -> bool:
        """An amount was signed for it and the proof is kept (what `svc tasks` shows as paid)."""
        return bool(self.amount_atomic) and self.has_proof

    @property
    def money(self) -> bool:
        """Money moved, or may have, for it: an amount was signed or a card page started, or a
        proof's outcome is unknown. Such a row is the record of a charge (`svc spend`)."""
        in_flight = (PayState.SIGNED, PayState.SENT, PayState.UNKNOWN, PayState.AWAITING_CARD)
        return bool(self.amount_atomic) or self.has_proof or self.status in in_flight

    @property
    def status_reason(self) -> str | None:
        """Why a row has no task, in words (`svc tasks` shows it where the state would be);
        None when it has a task."""
        if self.task_id:
            return None
        words = _STATUS_WORDS.get(self.status, "no task")
        why = _short(self.error_detail) or self.error
        if self.status == PayState.REJECTED and str(self.error or "").endswith("unavailable"):
            words = "not sent"  # no answer came back, and nothing was paid
        if self.status in (PayState.UNKNOWN, PayState.AWAITING_CARD) or not why:
            return words
        return f"{words}: {why}"

    def public_dict(self) -> dict[str, Any]:
        """The row as shown to users: everything but the proof and the body; times as the
        service writes them (ISO 8601, UTC), and why a row has no task."""
        hidden = ("proof", "body", "receipt", "proof_fp", "error_detail")
        doc = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in hidden}
        doc["created_at"], doc["updated_at"] = iso(self.created_at), iso(self.updated_at)
        doc["has_proof"] = self.has_proof
        doc["status_reason"] = self.status_reason
        return doc


# What a row without a task is, by its status (`Submission.status_reason`).
_STATUS_WORDS: dict[str, str] = {
    PayState.REJECTED: "refused",
    PayState.REFUSED: "payment refused",
    PayState.VOID: "payment void",
    PayState.UNKNOWN: "outcome unknown: `svc submit --request-id` resumes it",
    PayState.AWAITING_CARD: "waits for a card payment: `svc pay card`",
    PayState.JOURNALED: "interrupted before an answer",
    PayState.CHALLENGED: "interrupted before an answer",
    PayState.SIGNED: "interrupted before an answer",
    PayState.SENT: "interrupted before an answer",
}


def _short(detail: str | None) -> str | None:
    """A refusal's words without the lead they all share (`refusing to pay: ...`)."""
    if not detail:
        return None
    for lead in ("refusing to pay by card: ", "refusing to pay: "):
        if detail.startswith(lead):
            return detail[len(lead) :]
    return detail


@dataclass
class Authorization:
    """One signed payment (or a reservation for one) and its standing against the cap."""

    id: int
    request_id: str
    rail: str
    amount_atomic: int
    origin: str
    signed_at: float
    valid_before: float | None
    fingerprint: str | None
    pay_to: str | None
    network: str | None
    status: str
    refunded_atomic: int
    updated_at: float
    runner: str | None = None  # the runner that holds it
    profile: str | None = None  # the profile that paid (budgets filter on it)
    session: str | None = None  # the svc mcp session that paid

    def exposed(self, now: float) -> bool:
        """Still counts as money that may leave: not known spent, not void, not expired."""
        unexpired = self.valid_before is None or self.valid_before > now
        return self.status in EXPOSED and unexpired
