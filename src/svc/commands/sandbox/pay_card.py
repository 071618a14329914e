"""`svc sandbox pay-card [REQUEST_ID]`: press Pay (or Decline) on a card payment's page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import typer

from svc.api.ids import request_id_arg
from svc.api.response import expect_status
from svc.cli.app import current
from svc.errors import NotFoundError, SvcError, UsageError
from svc.ui.face import FaceContext

app = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class PayCardOptions:
    request_id: str | None = None  # None: the newest card payment waiting
    decline: bool = False


@app.command(
    name="pay-card",
    help="Press Pay (or Decline) on a card payment's page, as the person would (sandbox only).\n\n"
    "For a submit with --pay card that stopped at its payment page (exit 6 without a "
    "terminal): the newest waiting one, or REQUEST_ID's. Then `svc pay card` finishes it.\n\n"
    "\b\nExamples:\n"
    "  svc submit 'Book it' --email me@example.com --pay card --no-input   # exit 6\n"
    "  svc sandbox pay-card && svc pay card\n"
    "  svc sandbox pay-card req_0123 --decline",
)
def pay_card_page(
    request_id: str | None = typer.Argument(
        None, metavar="REQUEST_ID", help="The request (default: the newest card payment waiting)."
    ),
    decline: bool = typer.Option(False, "--decline", help="Press Decline instead of Pay."),
) -> None:
    rid = request_id_arg(request_id, "REQUEST_ID") if request_id is not None else None
    raise typer.Exit(run(PayCardOptions(rid, decline), current()))


def run(opts: PayCardOptions, app_ctx: FaceContext) -> int:
    saved = _waiting_payment(app_ctx, opts.request_id)
    # The page is the sandbox's own: on the base URL's origin, or not pressed at all.
    page = saved.get("checkout_url") or saved.get("pay_url")
    url = app_ctx.base.derive(str(page), "the card payment page")
    what = "sandbox pay-card"
    response = app_ctx.http.send(
        "POST",
        url,
        what=what,
        json_body={"action": "fail" if opts.decline else "pay"},
        resend_safe=True,  # pressing twice is the same press
    )
    try:
        expect_status(response, what)
    except SvcError:
        raise UsageError(
            f"{app_ctx.settings.base_url} refused the press: is it a sandbox?"
        ) from None
    _report(app_ctx, str(saved["request_id"]), opts.decline)
    return 0


def _waiting_payment(app_ctx: FaceContext, rid: str | None) -> dict[str, Any]:
    saved = app_ctx.ledger.card_payment(rid) if app_ctx.has_ledger() else None
    if not saved or not (saved.get("checkout_url") or saved.get("pay_url")):
        raise NotFoundError(
            f"no card payment page is waiting for {f'request {rid}' if rid else 'any submission'}",
            hint="a card payment starts with `svc submit --pay card`",
        )
    return saved


def _report(app_ctx: FaceContext, rid: str, decline: bool) -> None:
    if app_ctx.output.json_mode:
        app_ctx.output.emit_json({"request_id": rid, "pressed": "decline" if decline else "pay"})
        return
    verb = "Declined" if decline else "Paid"
    app_ctx.output.line(
        "{verb} on the card page of request {rid}; finish it with: svc pay card {rid}",
        verb=verb,
        rid=rid,
    )
