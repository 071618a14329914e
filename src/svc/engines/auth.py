"""How a task call authenticates, composed from the context's parts: the agent bearer on every
request (if a credential exists), and for a free call a zero-amount proof if the service asks.
A paid call's proof is the submit engine's (`engines/submit`); these never sign above 0."""

from __future__ import annotations

from typing import TYPE_CHECKING

from svc.context import AppContext
from svc.pay.wallet import load_signer

if TYPE_CHECKING:
    import httpx


def with_bearer(app: AppContext, payment: httpx.Auth | None) -> httpx.Auth | None:
    """`payment` with the agent bearer placed on every request it sends (if one exists)."""
    if app.bearer is None:
        return payment
    from svc.api.agent_auth import AgentAuth

    return AgentAuth(app.bearer, payment)


def zero_amount_auth(app: AppContext, kind: str = "task") -> httpx.Auth:
    """Answers a 402 asking for a zero-amount agent proof; never signs anything above 0.

    `kind` picks the proof header (task operations and the advisor differ).
    """
    from svc.pay.rails import PROOF_HEADERS, MemoryJournal, PaidAuth, X402Rail

    call = "the quote" if kind == "advisor" else "this call"
    rail = X402Rail(
        app.policy(max_price_usd=0),
        lambda: load_signer(app.secrets, app.settings, call),
        PROOF_HEADERS[kind],
    )
    return PaidAuth(rail, MemoryJournal())


def free_call_auth(app: AppContext) -> httpx.Auth | None:
    """Free task calls: the agent bearer, and a zero-amount proof if the service asks."""
    return with_bearer(app, zero_amount_auth(app, "task"))
