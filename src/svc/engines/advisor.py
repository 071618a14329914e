"""The free advisor, as `svc quote`/`svc guide` and the MCP `quote`/`guide` tools use it.

A quote costs nothing: when the advisor asks for it (402), a zero-amount proof is signed under
a policy whose cap is 0, so nothing that moves money can be. When the advisor is unavailable
(503) the spec's answer is the wallet-free guide: `quote` says so with None and the caller
shows the guide.
"""

from __future__ import annotations

from typing import Any

from svc.api.advisor import AdvisorClient, Guide
from svc.context import AppContext
from svc.errors import AdvisorUnavailableError, UsageError


def quote(app: AppContext, body: dict[str, Any]) -> dict[str, Any] | None:
    """The quote as returned (the four fields checked, its link gated), or None on a 503."""
    auth = app.zero_amount_auth("advisor")  # a cap of 0: nothing that moves money is signed
    advisor = AdvisorClient(app.http, app.settings.base_url)
    try:
        return advisor.quote(body, auth, app.trusts_link_host)
    except AdvisorUnavailableError:
        return None


def guide(app: AppContext, goal: str) -> Guide:
    """The wallet-free guide for a goal (no wallet, no proof)."""
    if not goal.strip():
        raise UsageError("the goal is empty: say what you want done")
    return AdvisorClient(app.http, app.settings.base_url).guide(goal)


def guide_document(result: Guide) -> dict[str, Any]:
    """The guide as JSON: the service's object when it sent one, else the Markdown wrapped."""
    return result.doc if result.doc is not None else {"guide": result.markdown}
