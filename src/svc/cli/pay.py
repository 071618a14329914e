"""`svc pay card [REQUEST_ID]`: finish a card payment a submit left waiting for a person."""

from __future__ import annotations

import typer

from svc.api.errors import HumanNeededError, NotFoundError, PaymentError
from svc.cli.app import current
from svc.cli.common import show_task

app = typer.Typer(rich_markup_mode=None)


@app.callback()
def pay() -> None:
    """Complete payments that need a person.

    A submit paid by card (--pay card) stops at a hosted payment page and exits 6; `svc pay
    card` finishes it once the person has paid, without paying twice.

    \b
    Examples:
      svc pay card
    """


@app.command(
    "card",
    help="Complete a pending card payment for a journaled submission, then send it.\n\n"
    "Starts (or re-shows) the hosted payment page, waits on its status until it is paid, then "
    "re-sends the original request unchanged with svc-payment-id. Without a terminal it checks "
    "the status once: paid → sends; not yet → prints the link and exits 6.\n\n"
    "\b\nExamples:\n"
    "  svc pay card\n"
    "  svc pay card req_0123abcd --no-input",
)
def card(
    request_id: str | None = typer.Argument(
        None, metavar="REQUEST_ID", help="The submission (default: the latest pending one)."
    ),
    no_browser: bool = typer.Option(False, "--no-browser", help="Do not open a browser."),
) -> None:
    import json

    from svc.flows.submit import submit
    from svc.pay.card import CardCheckout, CardOffer
    from svc.pay.x402 import atomic_to_usd
    from svc.store import ledger as L

    app_ctx = current()
    ledger = app_ctx.ledger
    saved = ledger.card_payment(request_id)
    if saved is None:
        target = f"request {request_id}" if request_id else "any submission"
        raise NotFoundError(
            f"no card payment is waiting for {target}",
            hint="see `svc tasks`; a card payment starts with `svc submit --pay card`",
        )
    rid = str(saved["request_id"])
    row = ledger.get(rid)
    if row is None:
        raise NotFoundError(f"request {rid} is not in the ledger")
    if row.status == L.ACCEPTED:
        app_ctx.output.note(f"request {rid} was already accepted (task {row.task_id})")
        raise typer.Exit(0)
    offer = CardOffer(
        str(saved["payment_id"]),
        int(saved["amount_atomic"]),
        str(saved["pay_url"]),
        str(saved["status_url"]),
    )
    if saved["status"] == "dead":
        raise PaymentError(
            "that card payment can never be spent",
            code="payment_failed",
            hint="start over: svc submit --pay card",
        )
    interactive = not app_ctx.settings.no_input
    checkout = CardCheckout(
        app_ctx.http, app_ctx.output, interactive=interactive, open_browser=not no_browser
    )
    if saved["status"] == "pending":
        state = checkout.status(offer)
        if state == "dead":
            ledger.set_card_status(rid, "dead")
            raise PaymentError(
                "the card payment failed or was cancelled; nothing was charged",
                code="card_payment_failed",
                hint="start over: svc submit --pay card",
            )
        if state != "complete":
            link = saved["checkout_url"] or checkout.start(offer)
            amount = f"{atomic_to_usd(offer.amount_atomic):.2f}"
            checkout.show(str(link), amount)
            if not interactive:
                raise HumanNeededError(
                    f"the card payment is not finished yet: {link}",
                    code="card_payment_pending",
                    hint=f"pay on that page, then run again: svc pay card {rid}",
                )
            checkout.wait(offer)
        ledger.set_card_status(rid, "complete")
    if not row.proof:
        ledger.record_proof(
            rid,
            method="card",
            proof=offer.payment_id,
            amount_atomic=offer.amount_atomic,
            pay_to=offer.recipient,
            payer="card",
            network="card",
            asset="usd",
        )
    result = submit(app_ctx, json.loads(row.body), request_id=rid, rail="card")
    if result.replayed:
        app_ctx.output.note(f"request {rid} was already accepted: not charged again")
    app_ctx.output.note(f"request id {rid}")
    show_task(app_ctx, result.task)
