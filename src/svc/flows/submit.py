"""A paid submission, at most once.

1. The ledger row (request id, body) is committed before the first byte is sent.
2. The request goes out without proof; the 402 is checked against the policy, signed, and the
   proof committed to the ledger before the identical request is re-sent with it.
3. Any retry (this process's or a later `svc submit --request-id`) re-sends the same request
   id and the same proof, which the service answers with the original task.
4. If the answer to a request that carried a proof is lost for good, the outcome is unknown
   (exit 10); the row says so and `--request-id` reconciles it later.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

from svc.api.errors import (
    OutcomeUnknownError,
    PaymentError,
    UnavailableError,
    UsageError,
    error_from_response,
)
from svc.api.http import parse_json
from svc.api.tasks import require_task_shape
from svc.context import AppContext
from svc.pay.negotiator import PROOF_HEADERS, X402Auth, X402Payer
from svc.pay.x402 import PaymentRequirements
from svc.store import ledger as L

TASK_PRICE_USD = "1.500000"  # the spec's flat fee; the 402 challenge is what is checked


@dataclass
class SubmitResult:
    task: dict[str, Any]
    request_id: str
    billing: str | None
    replayed: bool


class LedgerJournal:
    """A submission's proof, kept in the ledger so that every retry re-sends it."""

    def __init__(self, ledger: L.Ledger, request_id: str) -> None:
        self.ledger = ledger
        self.request_id = request_id

    def proof(self) -> str | None:
        row = self.ledger.get(self.request_id)
        return row.proof if row else None

    def record(self, proof: str, offer: PaymentRequirements, payer: str) -> None:
        self.ledger.record_proof(
            self.request_id,
            method="x402",
            proof=proof,
            amount_atomic=offer.amount,
            pay_to=offer.pay_to,
            payer=payer,
            network=offer.network,
            asset=offer.asset,
        )


def new_request_id() -> str:
    return f"req_{uuid.uuid4().hex}"


def validate_request_id(value: str) -> str:
    if not 8 <= len(value) <= 128 or not all(c.isalnum() or c in "-_.:" for c in value):
        raise UsageError(
            "request id must be 8-128 characters of letters, digits, '-', '_', '.' or ':'"
        )
    return value


def submit(
    app: AppContext,
    body: dict[str, Any],
    *,
    request_id: str | None = None,
    max_price_usd: object = None,
    trust_recipient: bool = False,
) -> SubmitResult:
    ledger = app.ledger
    rid = validate_request_id(request_id) if request_id else new_request_id()
    existing = ledger.get(rid)
    if existing and json.loads(existing.body) != body:
        raise UsageError(
            f"request id {rid} was already used for a different task; "
            "use a new id, or the same task text and e-mail to resume it"
        )
    ledger.create_submission(rid, app.settings.base_url, str(body["email"]), body)
    if not existing or existing.status == L.PREPARED:
        ledger.update(rid, status=L.SENT)

    def on_pay(offer: PaymentRequirements) -> None:
        from svc.pay.x402 import atomic_to_usd

        app.output.note(f"paying {atomic_to_usd(offer.amount)} USD with x402 to {offer.pay_to}")

    from svc.pay.wallet import load_signer

    payer = X402Payer(
        app.policy(max_price_usd=max_price_usd, trust_recipient=trust_recipient),
        lambda: load_signer(app.secrets),
        on_pay=on_pay,
    )
    auth = X402Auth(payer, LedgerJournal(ledger, rid), PROOF_HEADERS["task"])
    try:
        response = app.tasks.submit(body, rid, auth)
    except UnavailableError as exc:
        row = ledger.get(rid)
        if row and row.proof:
            ledger.update(rid, status=L.UNKNOWN, error=exc.message)
            raise OutcomeUnknownError(
                f"the answer to the paid submit was lost ({exc.message}); it may have been "
                "charged and accepted",
                hint=f"reconcile without paying again: svc submit --request-id {rid} "
                "with the same task and e-mail (see svc tasks)",
            ) from None
        ledger.update(rid, status=L.REJECTED, error=exc.message)
        exc.hint = exc.hint or "nothing was charged"
        raise
    except PaymentError as exc:  # policy refusal, no wallet: raised before any signature
        ledger.update(rid, status=L.REJECTED, error=exc.code)
        raise
    return _settle(app, rid, response.status_code, response)


def _settle(app: AppContext, rid: str, status: int, response: Any) -> SubmitResult:
    ledger = app.ledger
    billing = response.headers.get("svc-billing")
    if status in {202, 200}:
        task = require_task_shape(parse_json(response, "submit"), "submit")
        ledger.update(
            rid,
            status=L.ACCEPTED,
            task_id=task["id"],
            state=task["state"],
            http_status=status,
            billing=billing,
            error=None,
        )
        replayed = bool(billing and "replayed" in billing)
        return SubmitResult(task=task, request_id=rid, billing=billing, replayed=replayed)
    error = error_from_response(status, response.content, "submit")
    row = ledger.get(rid)
    if row and row.proof and status in (401, 402, 409):
        # The service refused this proof: it cannot be charged, and a retry must pay afresh.
        ledger.forget_proof(rid, error.code)
        error.hint = error.hint or "nothing was charged"
    else:
        ledger.update(rid, status=L.REJECTED, http_status=status, error=error.code)
    raise error
