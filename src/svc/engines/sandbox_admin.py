"""The sandbox's control routes, which a real service does not have: approve a payment,
a claim link's code, a test ID-JAG, a press on a card payment's page.

Each asks the sandbox at the person's own base URL and returns its answer; a server that
answers as no sandbox would is a usage error that asks "is it a sandbox?".
"""

from __future__ import annotations

from typing import Any

from svc.api.ids import path_segment
from svc.api.response import expect_json, expect_status
from svc.context import AppContext
from svc.errors import NotFound, SvcError, UsageError
from svc.origin import configured


def approve(app: AppContext, task_id: str) -> dict[str, object]:
    """Approve a task's pending payment, as the person would in their app."""
    segment = path_segment(task_id, "ID")
    url = f"{app.settings.base_url}/_sandbox/tasks/{segment}/approve"
    return _admin_post(app, url, "sandbox approve")


def claim_code(app: AppContext, attempt: str | None) -> tuple[str, dict[str, object]]:
    """(the code, the answer) of the newest pending claim link, or of `attempt`'s."""
    url = app.settings.base_url + "/_sandbox/identity/claim-code"
    if attempt is not None:
        url += "?attempt_id=" + attempt
    doc = _admin_post(app, url, "sandbox claim-code")
    code = doc.get("user_code")
    if not isinstance(code, str):
        raise UsageError(f"{app.settings.base_url} did not give a code: is it a sandbox?")
    return code, doc


def mint_id_jag(app: AppContext, fields: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(the assertion, the answer) the sandbox's identity provider signed for `fields`
    (the route's own names: email, issuer, aud, email_verified, ...)."""
    url = app.base.join("/_sandbox/identity/id-jag")
    response = app.http.send("POST", url, what="mint-id-jag", json_body=fields, resend_safe=True)
    doc = expect_json(response, "mint-id-jag")
    assertion = doc.get("assertion") if isinstance(doc, dict) else None
    if not isinstance(assertion, str) or not isinstance(doc, dict):
        raise UsageError(f"{app.settings.base_url} did not mint an assertion: is it a sandbox?")
    return assertion, doc


def press_card_page(app: AppContext, request_id: str | None, *, decline: bool) -> str:
    """Press Pay (or Decline) on the page of the newest card payment waiting, or of
    `request_id`'s; the request id whose page was pressed."""
    saved = _waiting_card_payment(app, request_id)
    # The page is the sandbox's own: on the base URL's origin, or not pressed at all.
    page = saved.get("checkout_url") or saved.get("pay_url")
    url = app.base.derive(str(page), "the card payment page")
    what = "sandbox pay-card"
    response = app.http.send(
        "POST",
        url,
        what=what,
        json_body={"action": "fail" if decline else "pay"},
        resend_safe=True,  # pressing twice is the same press
    )
    try:
        expect_status(response, what)
    except SvcError:
        raise UsageError(f"{app.settings.base_url} refused the press: is it a sandbox?") from None
    return str(saved["request_id"])


class NoCardPageError(NotFound):
    """No card payment's page is waiting (for that request): nothing was pressed."""

    def __init__(self, rid: str | None) -> None:
        which = f"request {rid}" if rid else "any submission"
        super().__init__(f"no card payment page is waiting for {which}")


def _waiting_card_payment(app: AppContext, rid: str | None) -> dict[str, Any]:
    saved = app.ledger.card_payment(rid) if app.has_ledger() else None
    if not saved or not (saved.get("checkout_url") or saved.get("pay_url")):
        raise NoCardPageError(rid)
    return saved


def _admin_post(app: AppContext, url: str, what: str) -> dict[str, object]:
    """POST to a sandbox control route; a real service has none (404 -> "is it a sandbox?")."""
    target = configured(url, what)  # the person's own base URL and a sandbox path
    response = app.http.send("POST", target, what=what, json_body={}, resend_safe=True)
    doc = expect_json(response, what)
    if not isinstance(doc, dict):
        raise UsageError(f"{app.settings.base_url} did not answer: is it a sandbox?")
    return doc
