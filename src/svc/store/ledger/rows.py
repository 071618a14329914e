"""What the ledger holds, whatever engine keeps it: the states of a paid request, of a card
payment and of an authorization against the cap, and the rows as read back."""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any


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

    def public_dict(self) -> dict[str, Any]:
        """The row as shown to users: everything but the proof and the body."""
        hidden = ("proof", "body", "receipt", "proof_fp")
        doc = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in hidden}
        doc["has_proof"] = self.has_proof
        return doc


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

    def exposed(self, now: float) -> bool:
        """Still counts as money that may leave: not known spent, not void, not expired."""
        unexpired = self.valid_before is None or self.valid_before > now
        return self.status in EXPOSED and unexpired
