"""The zero-amount proof a free call answers a 402 with: the x402 rail under a policy whose
price cap is 0, over an in-memory journal (nothing is owed, nothing is journaled). Built only
when the service asks (engines/auth.zero_amount_auth defers it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from svc.pay.rails import PROOF_HEADERS, MemoryJournal, PaidAuth, X402Rail
from svc.pay.wallet import load_signer

if TYPE_CHECKING:
    from svc.context import AppContext


def zero_amount_paid_auth(app: AppContext, kind: str) -> PaidAuth:
    """`kind` picks the proof header (task operations and the advisor differ)."""
    call = "the quote" if kind == "advisor" else "this call"
    rail = X402Rail(
        app.policy(max_price_usd=0),
        lambda: load_signer(app.secrets, app.settings, call),
        PROOF_HEADERS[kind],
    )
    return PaidAuth(rail, MemoryJournal())
