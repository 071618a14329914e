"""A paid submission, at most once, by any rail (x402, MPP, card).

1. The ledger row (request id, body) is committed before the first byte is sent.
2. The request goes out without proof; the 402 is checked against the policy, paid by the rail
   (signature, token credential, or a completed card payment), and the proof committed to the
   ledger before the identical request is re-sent with it.
3. Any retry (this process's or a later `svc submit --request-id`) re-sends the same request
   id and the same proof, which the service answers with the original task.
4. If the answer to a request that carried a proof is lost for good, the outcome is unknown
   (exit 10); the row says so and `--request-id` reconciles it later.
5. A payment error is handled by the spec's table (`svc.pay.errors`): retried unchanged
   (provider unavailable), paid afresh once (refused proof, dead payment), or shown.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from svc.api.errors import (
    OutcomeUnknownError,
    PaymentError,
    ProtocolError,
    UnavailableError,
    UsageError,
)
from svc.api.http import parse_json
from svc.api.tasks import require_task_shape
from svc.context import AppContext
from svc.pay.errors import Action, classify, to_error
from svc.pay.rails import Paid, PaidAuth
from svc.store import ledger as L
from svc.testing_hooks import crash_point

if TYPE_CHECKING:
    import httpx

    from svc.pay.card import CardOffer
    from svc.pay.policy import PaymentPolicy
    from svc.pay.rails import Rail

TASK_PRICE_USD = "1.500000"  # the spec's flat fee; the 402 challenge is what is checked
MAX_FRESH_CHALLENGES = 1  # settlement_failed / identity_invalid: pay a fresh 402 once
MAX_START_OVERS = 1  # a dead payment (refunded, consumed, failed, released): start over once
MAX_PROVIDER_RETRIES = 3  # payment_provider_unavailable: re-send unchanged, with backoff
MAX_CARD_FINISHES = 1  # payment_incomplete: wait on statusUrl once more


@dataclass
class SubmitResult:
    task: dict[str, Any]
    request_id: str
    billing: str | None
    replayed: bool
    rail: str = "x402"


class LedgerJournal:
    """A submission's proof, kept in the ledger so that every retry re-sends it."""

    def __init__(self, ledger: L.Ledger, request_id: str) -> None:
        self.ledger = ledger
        self.request_id = request_id

    def proof(self) -> str | None:
        row = self.ledger.get(self.request_id)
        return row.proof if row else None

    def record(self, paid: Paid) -> None:
        self.ledger.record_proof(
            self.request_id,
            method=paid.rail,
            proof=paid.proof,
            amount_atomic=paid.amount_atomic,
            pay_to=paid.pay_to,
            payer=paid.payer,
            network=paid.network,
            asset=paid.asset,
        )


class LedgerBudget:
    """The daily cap, reserved in the ledger under this request id (shared by all processes)."""

    def __init__(self, ledger: L.Ledger, request_id: str, rail: str, cap_atomic: int) -> None:
        self.ledger = ledger
        self.request_id = request_id
        self.rail = rail
        self.cap_atomic = cap_atomic

    def reserve(self, amount_atomic: int) -> None:
        from svc.pay.policy import PolicyRefusal
        from svc.pay.x402 import atomic_to_usd

        midnight = datetime.now().replace(hour=0, minute=0, second=0, microsecond=0)
        spent = self.ledger.reserve_daily(
            self.request_id, self.rail, amount_atomic, self.cap_atomic, midnight.timestamp()
        )
        if spent is not None:
            raise PolicyRefusal(
                f"refusing to pay: {atomic_to_usd(amount_atomic)} USD would exceed the daily cap "
                f"of {atomic_to_usd(self.cap_atomic)} USD ({atomic_to_usd(spent)} USD spent today)",
                code="daily_cap_exceeded",
                hint="nothing was signed or paid; raise it with `svc config set daily_cap_usd`",
            )


def new_request_id() -> str:
    return f"req_{uuid.uuid4().hex}"


def validate_request_id(value: str) -> str:
    if not 8 <= len(value) <= 128 or not all(c.isalnum() or c in "-_.:" for c in value):
        raise UsageError(
            "request id must be 8-128 characters of letters, digits, '-', '_', '.' or ':'"
        )
    return value


def prepare(app: AppContext, body: dict[str, Any], request_id: str | None) -> str:
    """Journal the submission (or find it again); returns its request id."""
    ledger = app.ledger
    rid = validate_request_id(request_id) if request_id else new_request_id()
    existing = ledger.get(rid)
    if existing and json.loads(existing.body) != body:
        raise UsageError(
            f"request id {rid} was already used for a different task; "
            "use a new id, or the same task text and e-mail to resume it"
        )
    ledger.create_submission(rid, app.settings.base_url, str(body["email"]), body)
    return rid


def submit(
    app: AppContext,
    body: dict[str, Any],
    *,
    request_id: str | None = None,
    max_price_usd: object = None,
    trust_recipient: bool = False,
    rail: str = "x402",
) -> SubmitResult:
    ledger = app.ledger
    policy = app.policy(max_price_usd=max_price_usd, trust_recipient=trust_recipient)
    policy.check_rail(rail)  # before anything is sent
    rid = prepare(app, body, request_id)
    crash_point("ledger_written")
    existing = ledger.get(rid)
    if existing and existing.method and existing.method != rail and existing.proof:
        rail = existing.method  # resuming: the journaled proof decides the rail
    cap = app.settings.daily_cap_usd
    if cap is not None:
        from svc.pay.x402 import usd_to_atomic

        policy.budget = LedgerBudget(ledger, rid, rail, usd_to_atomic(cap))
    auth = PaidAuth(make_rail(app, rail, policy, rid), LedgerJournal(ledger, rid))
    return _run(app, body, rid, auth, rail)


def make_rail(app: AppContext, rail: str, policy: PaymentPolicy, rid: str) -> Rail:
    if rail == "mpp":
        from svc.pay.mpp import SptSource
        from svc.pay.rails import MppRail

        source = SptSource(
            lambda: app.secrets.get("spt"),
            file=app.settings.spt_file,
            command=app.settings.spt_command,
        )
        return MppRail(policy, source.token, app.settings.mpp_methods, on_pay=app.output.note)
    if rail == "card":
        from svc.pay.card import CardCheckout
        from svc.pay.rails import CardRail

        checkout = CardCheckout(
            app.http,
            app.output,
            interactive=not app.settings.no_input,
            open_browser=not app.settings.no_input,
        )

        def save(offer: CardOffer, link: str | None) -> None:
            _save_card(app.ledger, rid, offer, link, status="pending")

        def complete(offer: CardOffer) -> None:
            app.ledger.set_card_status(rid, "complete")

        return CardRail(policy, checkout, save, complete)
    from svc.pay.negotiator import PROOF_HEADERS, X402Payer
    from svc.pay.rails import X402Rail
    from svc.pay.wallet import load_signer
    from svc.pay.x402 import PaymentRequirements, atomic_to_usd

    def on_pay(offer: PaymentRequirements) -> None:
        app.output.note(f"paying {atomic_to_usd(offer.amount)} USD with x402 to {offer.pay_to}")

    payer = X402Payer(policy, lambda: load_signer(app.secrets), on_pay=on_pay)
    return X402Rail(payer, PROOF_HEADERS["task"])


def _save_card(
    ledger: L.Ledger, rid: str, offer: CardOffer, link: str | None, *, status: str
) -> None:
    ledger.save_card_payment(
        rid,
        payment_id=offer.payment_id,
        pay_url=offer.pay_url,
        status_url=offer.status_url,
        checkout_url=link,
        amount_atomic=offer.amount_atomic,
        status=status,
    )
    ledger.update(
        rid,
        method="card",
        amount_atomic=offer.amount_atomic,
        pay_to=offer.recipient,
        status=L.AWAITING_CARD if status == "pending" else L.PAYING,
    )


def _run(
    app: AppContext, body: dict[str, Any], rid: str, auth: PaidAuth, rail: str
) -> SubmitResult:
    """Send until accepted or a final answer, following the payment error table."""
    ledger = app.ledger
    fresh = start_over = provider = finishes = 0
    while True:
        row = ledger.get(rid)
        if row is not None and not row.proof and row.status != L.SENT:
            ledger.update(rid, status=L.SENT)
        response = _send(app, body, rid, auth)
        status = response.status_code
        if status in (200, 202):
            return _accepted(app, rid, response, rail)
        decision = classify(status, response.content)
        action = decision.action if decision else Action.STOP
        after = ledger.get(rid)
        had_proof = bool(after and after.proof)
        _note_billing(app, rid, response)
        if action is Action.RETRY_UNCHANGED and provider < MAX_PROVIDER_RETRIES:
            wait = app.http.retry.delay(provider)
            provider += 1
            app.output.note(f"the payment provider is unavailable; retrying in {wait:.1f} s")
            app.http.sleep(wait)
            continue
        if action is Action.FRESH_CHALLENGE and had_proof and fresh < MAX_FRESH_CHALLENGES:
            fresh += 1
            ledger.forget_proof(rid, decision.code if decision else "refused")
            reason = _reason(response)
            app.output.note(
                f"the payment was refused ({decision.code if decision else status}"
                f"{': ' + reason if reason else ''}); nothing was charged. "
                "Paying a fresh challenge once"
            )
            continue
        if action is Action.START_OVER and start_over < MAX_START_OVERS:
            start_over += 1
            ledger.forget_proof(rid, decision.code if decision else "dead_payment")
            if rail == "card":
                ledger.set_card_status(rid, "dead")
            app.output.note(
                f"that payment can never be spent ({decision.code if decision else status}); "
                "starting over with a fresh 402"
            )
            continue
        if action is Action.FINISH_CARD and rail == "card" and finishes < MAX_CARD_FINISHES:
            finishes += 1
            _finish_card(app, rid)
            continue
        _reject(app, rid, response, decision)


def _send(app: AppContext, body: dict[str, Any], rid: str, auth: PaidAuth) -> httpx.Response:
    ledger = app.ledger
    try:
        return app.tasks.submit(body, rid, app.with_bearer(auth))  # bearer (if any) + payment
    except (UnavailableError, ProtocolError) as exc:  # no answer, or one that cannot be read
        row = ledger.get(rid)
        if row and row.proof:
            raise _answer_lost(ledger, rid, exc.message) from None
        ledger.update(rid, status=L.REJECTED, error=exc.message)  # no proof left: no charge
        exc.hint = exc.hint or "nothing was charged"
        raise
    except PaymentError as exc:  # policy refusal, no wallet/token: raised before any signature
        row = ledger.get(rid)
        if not (row and row.status == L.AWAITING_CARD):
            ledger.update(rid, status=L.REJECTED, error=exc.code)
        raise
    except Exception as exc:  # HumanNeededError (card page pending) and the like
        from svc.api.errors import HumanNeededError

        if not isinstance(exc, HumanNeededError):
            row = ledger.get(rid)
            if row and not row.proof:
                ledger.update(rid, status=L.REJECTED, error=type(exc).__name__)
        raise


def _answer_lost(ledger: L.Ledger, rid: str, why: str) -> OutcomeUnknownError:
    """A request that carried a proof got no readable answer: it may have been charged."""
    ledger.update(rid, status=L.UNKNOWN, error=why)
    return OutcomeUnknownError(
        f"the answer to the paid submit was lost ({why}); it may have been charged and accepted",
        hint=f"reconcile without paying again: svc submit --request-id {rid} "
        "with the same task and e-mail (see svc tasks)",
    )


def _finish_card(app: AppContext, rid: str) -> None:
    """payment_incomplete: wait on the saved statusUrl (a person), else exit 6."""
    from svc.api.errors import HumanNeededError
    from svc.pay.card import CardCheckout, CardOffer

    saved = app.ledger.card_payment(rid)
    if saved is None:
        raise PaymentError("the service says the card payment is incomplete, but none is saved")
    offer = CardOffer(
        saved["payment_id"], saved["amount_atomic"], saved["pay_url"], saved["status_url"]
    )
    interactive = not app.settings.no_input
    if not interactive:
        raise HumanNeededError(
            f"the card payment is not finished: {saved['checkout_url'] or saved['pay_url']}",
            code="payment_incomplete",
            hint="finish it on the payment page, then: svc pay card " + rid,
        )
    CardCheckout(app.http, app.output, interactive=True).wait(offer)


def _reason(response: httpx.Response) -> str | None:
    from svc.pay.errors import error_code

    _, doc = error_code(response.content)
    for key in ("settlementReason", "reason", "detail"):
        value = doc.get(key)
        if isinstance(value, str):
            from svc.ui.sanitize import clean

            return clean(value, 200, single_line=True)
    return None


def _note_billing(app: AppContext, rid: str, response: httpx.Response) -> None:
    """svc-billing is shown and stored; a refund is recorded against the submission."""
    billing = response.headers.get("svc-billing")
    if not billing:
        return
    from svc.ui.sanitize import clean

    app.output.note(f"billing: {clean(billing, 300, single_line=True)}")
    fields = parse_billing(billing)
    update: dict[str, Any] = {"billing": billing}
    if fields.get("status") == "refunded":
        from decimal import Decimal, InvalidOperation

        from svc.pay.x402 import usd_to_atomic

        with contextlib.suppress(InvalidOperation, ValueError, ArithmeticError):
            update["refunded_atomic"] = usd_to_atomic(Decimal(fields.get("amount_usd", "0")))
        update["status"] = L.REFUNDED
    app.ledger.update(rid, **update)


def parse_billing(value: str) -> dict[str, str]:
    """`status=charged; method=x402; amount_usd=1.500000; payment_id=pay_…` as a dict."""
    out: dict[str, str] = {}
    for part in value.split(";"):
        key, sep, val = part.strip().partition("=")
        if sep:
            out[key.strip().lower()] = val.strip()
    return out


def _accepted(app: AppContext, rid: str, response: httpx.Response, rail: str) -> SubmitResult:
    ledger = app.ledger
    billing = response.headers.get("svc-billing")
    try:
        task = require_task_shape(parse_json(response, "submit"), "submit")
    except ProtocolError as exc:
        # Accepted (and, with a proof, charged) but unreadable: the task id is lost, not the
        # task; a resume with the same request id gets the original task back.
        row = ledger.get(rid)
        if row and row.proof:
            raise _answer_lost(ledger, rid, exc.message) from None
        raise
    receipt = response.headers.get("payment-receipt") or response.headers.get("payment-response")
    usage_error = response.headers.get("svc-usage-error")
    ledger.update(
        rid,
        status=L.ACCEPTED,
        task_id=task["id"],
        state=task["state"],
        http_status=response.status_code,
        billing=billing,
        error=None,
        receipt=receipt,
        usage_error=usage_error,
    )
    if rail == "card":
        ledger.set_card_status(rid, "used")
    crash_point("response_recorded")
    if billing:
        from svc.ui.sanitize import clean

        app.output.note(f"billing: {clean(billing, 300, single_line=True)}")
    if usage_error:
        from svc.ui.sanitize import clean

        app.output.warn(
            f"the service could not bill this call's usage ({clean(usage_error, 100)}); "
            "the task was accepted and is not re-sent"
        )
    replayed = bool(billing and parse_billing(billing).get("status") == "replayed")
    return SubmitResult(task=task, request_id=rid, billing=billing, replayed=replayed, rail=rail)


def _reject(app: AppContext, rid: str, response: httpx.Response, decision: Any) -> None:
    ledger = app.ledger
    status = response.status_code
    error = to_error(status, response.content, decision)
    row = ledger.get(rid)
    if row and row.status == L.REFUNDED:
        error.message = (
            f"the service could not deliver the task (HTTP {status}); the payment was "
            "refunded in full"
        )
        error.hint = "nothing was kept; run the submit again later to pay a fresh 402"
        raise error
    if not (row and row.proof):
        ledger.update(rid, status=L.REJECTED, http_status=status, error=error.code)
        error.hint = error.hint or "nothing was charged"
        raise error
    not_processed = status == 429 or (
        decision is not None and decision.action is Action.RETRY_UNCHANGED
    )
    if not_processed:
        # Refused before payment was looked at: the proof stays valid for a later resume.
        ledger.update(rid, status=L.REJECTED, http_status=status, error=error.code)
        raise error
    if status >= 500:
        ledger.update(rid, status=L.UNKNOWN, http_status=status, error=error.code)
        raise OutcomeUnknownError(
            f"the paid submit failed with HTTP {status} after retries; it may or may not have "
            "been charged and accepted",
            hint=f"reconcile without paying again: svc submit --request-id {rid} "
            "with the same task and e-mail (see svc tasks)",
        )
    # Any other refusal of a request that carried a proof: the proof was not charged and can
    # never be; a later retry must pay afresh.
    ledger.forget_proof(rid, error.code)
    error.hint = error.hint or "nothing was charged"
    raise error
