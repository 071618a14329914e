"""How a task call authenticates, composed from the context's parts: the agent bearer on every
request (if a credential exists), and for a free call a zero-amount proof if the service asks.
A paid call's proof is the submit engine's (`engines/submit`); these never sign above 0."""

from __future__ import annotations

from typing import TYPE_CHECKING

from svc.context import AppContext

if TYPE_CHECKING:
    import httpx


def with_bearer(app: AppContext, payment: httpx.Auth | None) -> httpx.Auth | None:
    """`payment` with the agent bearer placed on every request it sends (if one exists)."""
    if app.bearer is None:
        return payment
    from svc.identity.agent_auth import AgentAuth

    return AgentAuth(app.bearer, payment)


def zero_amount_auth(app: AppContext, kind: str = "task") -> httpx.Auth:
    """Answers a 402 asking for a zero-amount agent proof; never signs anything above 0.

    `kind` picks the proof header (task operations and the advisor differ). The rail, its
    policy and the signer's code are built only if the service asks (api/deferred_auth).
    """
    from svc.api.deferred_auth import PaymentOnChallenge

    def make() -> httpx.Auth:
        from svc.engines.zero_amount import zero_amount_paid_auth

        return zero_amount_paid_auth(app, kind)

    return PaymentOnChallenge(make)


def free_call_auth(app: AppContext) -> httpx.Auth | None:
    """Free task calls: the agent bearer, and a zero-amount proof if the service asks."""
    return with_bearer(app, zero_amount_auth(app, "task"))
