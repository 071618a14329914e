"""The free advisor, as `svc quote`/`svc guide` and the MCP `quote`/`guide` tools use it.

A quote costs nothing: when the advisor asks for it (402), a zero-amount proof (x402 by the
wallet, or MPP by the person's token) is signed under a policy whose cap is 0, so nothing that
moves money can be. When the advisor is unavailable
(503) the spec's answer is the wallet-free guide: `quote` says so with None and the caller
shows the guide.
"""

from __future__ import annotations

from typing import Any

from svc import rail_table
from svc.api.advisor import AdvisorClient, Guide
from svc.context import AppContext
from svc.errors import AdvisorUnavailableError, PaymentFailed, UsageError
from svc.next_step import step
from svc.pay.mpp import SptSource
from svc.pay.rails import (
    PROOF_HEADERS,
    ChosenRail,
    MemoryJournal,
    MppRail,
    PaidAuth,
    Rail,
    X402Rail,
)
from svc.pay.wallet import has_wallet, load_signer
from svc.store.secrets import profile_key

PROOF_RAILS = rail_table.FREE_PROOF_NAMES  # what can sign a zero-amount proof
# Where an answer to a quote came from, in every face's JSON that can hold either: the
# advisor's quote, or the wallet-free guide given in its place when the advisor is down (503).
ADVISOR, FALLBACK = "advisor", "fallback"


def quote(app: AppContext, body: dict[str, Any], rail: str | None = None) -> dict[str, Any] | None:
    """The quote as returned (the four fields checked, its link gated), or None on a 503.

    The spec's zero-amount proof is x402 or MPP: `rail` names one, else the person's wallet,
    else their MPP token."""
    auth = PaidAuth(ChosenRail(lambda: proof_rail(app, rail)), MemoryJournal())
    advisor = AdvisorClient(app.http, app.settings.base_url)
    try:
        return advisor.quote(body, auth, app.trusts_link_host)
    except AdvisorUnavailableError:
        return None


def proof_rail(app: AppContext, wanted: str | None) -> Rail:
    """The rail of the quote's zero-amount proof, under a policy whose cap is 0 (nothing that
    moves money can be signed): `wanted`, else the wallet, else the MPP token."""
    policy = app.policy(max_price_usd=0)
    spt = SptSource(
        lambda: app.secrets.get(profile_key("spt", app.settings.profile)),
        file=app.settings.spt_file,
        command=app.settings.spt_command,
    )
    if wanted is None:
        if has_wallet(app.secrets, app.settings):
            wanted = rail_table.X402
        elif spt.secret() or spt.file or spt.command:
            wanted = rail_table.MPP
        else:
            raise _neither()
    if wanted == rail_table.MPP:
        return MppRail(policy, spt.token, app.settings.mpp_methods, ready=spt.check)
    return X402Rail(
        policy,
        lambda: load_signer(app.secrets, app.settings, "the quote"),
        PROOF_HEADERS["advisor"],
    )


def _neither() -> PaymentFailed:
    return PaymentFailed(
        "the quote is free, but the service asks for a zero-amount proof (nothing is paid) "
        "signed by a wallet or an MPP token, and there is neither",
        code="no_wallet",
        next=step("get_wallet_or_spt"),
    )


def guide(app: AppContext, goal: str) -> Guide:
    """The wallet-free guide for a goal (no wallet, no proof)."""
    if not goal.strip():
        raise UsageError("the goal is empty: say what you want done")
    return AdvisorClient(app.http, app.settings.base_url).guide(goal)


def guide_document(result: Guide) -> dict[str, Any]:
    """The guide as JSON: the service's object when it sent one, else the Markdown wrapped."""
    return result.doc if result.doc is not None else {"guide": result.markdown}


def fallback_document(result: Guide) -> dict[str, Any]:
    """The wallet-free guide given in a quote's place (the advisor answered 503), marked
    `"source": "fallback"`: its fields look like a quote's (`status`, `priceUsd`), and a
    script must be able to tell it from one without reading stderr."""
    return {**guide_document(result), "source": FALLBACK}
