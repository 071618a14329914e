"""`svc sandbox pay-card [REQUEST_ID]`: press Pay (or Decline) on a card payment's page."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.engines.ids import request_id_arg
from svc.engines.sandbox_admin import NoCardPageError, press_card_page
from svc.operations.sandbox import SandboxPayCardRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


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
def pay_card_page(**given: Any) -> None:
    raise typer.Exit(run(SandboxPayCardRequest.model_construct(**given), current()))


# REQUEST_ID and --decline: as the operation declares them.
with_options_of(SandboxPayCardRequest, pay_card_page)


def run(opts: SandboxPayCardRequest, app_ctx: FaceContext) -> int:
    named = opts.request_id
    wanted = request_id_arg(named, "REQUEST_ID") if named is not None else None
    try:
        rid = press_card_page(app_ctx, wanted, decline=opts.decline)
    except NoCardPageError as exc:
        exc.hint = "a card payment starts with `svc submit --pay card`"
        raise
    _report(app_ctx, rid, opts.decline)
    return 0


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
