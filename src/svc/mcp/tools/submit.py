"""`submit_task`: the CLI's paid submit flow, with the person confirming the payment.

The flow is `svc.engines.submit.submit`, unchanged: the same journal, policy, daily cap and
request-id idempotency as `svc submit`. What MCP adds is the approval hook the policy asks
last, after every limit passed and the hold on the cap is taken (released if the person says
no), before anything is signed: paid calls up to
`mcp_preapproved_usd` pass, anything else needs the person's "pay" through elicitation, and
with no way to ask the person the call is refused (nothing signed).
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from svc.context import AppContext
from svc.engines.dry_run import dry_run
from svc.engines.submit import SubmitResult, new_request_id, refuse_duplicate, submit
from svc.engines.validate import task_body
from svc.errors import UsageError
from svc.mcp.human import Human
from svc.mcp.results import Outcome
from svc.mcp.state import Call
from svc.money import atomic_for_people, for_people, usd_to_atomic
from svc.pay.policy import PolicyRefusal
from svc.promises import refuse_sending
from svc.sanitize import clean
from svc.settings import Settings, usd_amount
from svc.words import usd


async def submit_task(call: Call, args: dict[str, Any]) -> Outcome:
    return await call.run(lambda app: _submit(app, call.human, args))


def _submit(app: AppContext, human: Human, args: dict[str, Any]) -> Outcome:
    given = {"dry_run": bool(args.get("dry_run")), "request_id": "request_id" in args}
    refuse_sending("mcp", given | {"allow_duplicate": bool(args.get("allow_duplicate"))})
    body = _body(app.settings, args)
    rail = str(args.get("pay") or app.settings.pay)
    cap = _cap(app.settings, args.get("max_price_usd"))
    if given["dry_run"]:
        return _dry_run(app, body, rail, cap)
    # The next round of an approval asked under 2026-07-28 resumes the request it named.
    request_id = args.get("request_id") or human.resumed("pay", "request_id")
    if request_id is None and not args.get("allow_duplicate"):
        refuse_duplicate(app, body)
    rid = str(request_id or new_request_id())
    app.payment_approver = approver(app.settings, human, body, rid)
    try:
        result = submit(app, body, request_id=rid, max_price_usd=cap, rail=rail)
    except PolicyRefusal as exc:
        if exc.code == "payment_not_approved":
            exc.hint = _not_approved_hint(app.settings, human)
        raise
    finally:
        app.payment_approver = None
    return _outcome(result)


def _dry_run(app: AppContext, body: dict[str, Any], rail: str, cap: Decimal | None) -> Outcome:
    """What would be paid, with nothing sent to the task endpoint and nothing signed."""
    doc = dry_run(app, body, rail, cap)
    verdict = "within" if doc["within_policy"] else "above"
    text = (
        f"Dry run: nothing was sent or paid. The task would cost {usd(doc['price_usd'])} by "
        f"{rail}, {verdict} the limit of {usd(doc['max_price_usd'])} per call."
    )
    return Outcome({"dry_run": doc}, text)


def _body(settings: Settings, args: dict[str, Any]) -> dict[str, Any]:
    email = args.get("email") or settings.email
    if not email:
        raise UsageError(
            "missing email: the person's e-mail address is required (no default in the profile)"
        )
    return task_body(args.get("task"), email)


def _cap(settings: Settings, raw: object) -> Decimal | None:
    """The agent may lower the profile's per-call cap, never raise it."""
    if raw is None:
        return None
    return min(usd_amount("max_price_usd", raw), settings.max_price_usd)


def approver(
    settings: Settings, human: Human, body: dict[str, Any], request_id: str
) -> Callable[[str, int, str], bool]:
    """The policy's last question (rail, amount in µUSD, recipient) -> pay or not."""

    def approve(rail: str, amount_atomic: int, pay_to: str) -> bool:
        preapproved = settings.mcp_preapproved_usd
        if preapproved is not None and amount_atomic <= usd_to_atomic(preapproved):
            return True
        if not human.reachable:
            return False
        task = clean(body["task"], 300, single_line=True)
        message = (
            f"Pay {atomic_for_people(amount_atomic)} by {rail} to {pay_to}?\n\n"
            f"Task: {task}\nFor: {clean(body['email'], 254, single_line=True)}\n"
            f"Request id: {request_id}\n"
            f"Limit per call: {for_people(settings.max_price_usd)}. Nothing is signed unless you "
            "tick Pay."
        )
        # The person's "pay" answers this payment only: same request, rail, amount, recipient.
        about = {
            "kind": "pay",
            "request_id": request_id,
            "rail": rail,
            "amount_atomic": amount_atomic,
            "pay_to": pay_to,
        }
        return human.confirm_from_thread(message, about)

    return approve


def _not_approved_hint(settings: Settings, human: Human) -> str:
    if human.reachable:
        return "nothing was signed or paid: the person did not confirm the payment"
    pre = settings.mcp_preapproved_usd
    covered = f" (mcp_preapproved_usd is {for_people(pre)})" if pre is not None else ""
    return (
        "nothing was signed or paid: this MCP client cannot ask the person to confirm a "
        f"payment (no elicitation support) and the profile does not pre-approve it{covered}; "
        "the person can submit it with `svc submit` in a terminal, or allow paid calls up to "
        "a price with `svc config set mcp_preapproved_usd 1.50`"
    )


def _outcome(result: SubmitResult) -> Outcome:
    task = result.task
    doc = {
        "task": task,
        "request_id": result.request_id,
        "rail": result.rail,
        "replayed": result.replayed,
        "billing": result.billing,
    }
    text = f"Task {task.get('id')} submitted ({task.get('state')}); request id {result.request_id}."
    billing = result.terms
    if result.replayed:
        text += " It was already accepted earlier: not charged again."
    elif billing.get("status") == "charged":
        text += f" Paid {usd(billing.get('amount_usd', '?'))} by {result.rail}."
    return Outcome(doc, text + " Follow it with wait_for_task.")
