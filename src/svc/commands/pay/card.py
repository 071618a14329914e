"""`svc pay card [REQUEST_ID]`: finish a card payment a submit left waiting for a person."""

from __future__ import annotations

from typing import Any

import typer

from svc.cli.app import current
from svc.cli.options import with_options_of
from svc.cli.polled import show_task
from svc.engines.ids import request_id_arg
from svc.operations.budget import PayCardRequest
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@app.command(
    "card",
    help="Complete a pending card payment for a journaled submission, then send it.\n\n"
    "Starts (or re-shows) the hosted payment page, waits on its status until it is paid, then "
    "re-sends the original request unchanged with svc-payment-id, only to the origin the "
    "payment was made for (another --base-url is refused, exit 2). Without a terminal it "
    "checks the status once: paid → sends; not yet → prints the link and exits 6.\n\n"
    "\b\nExamples:\n"
    "  svc pay card\n"
    "  svc pay card req_0123abcd --no-input",
)
def card(**given: Any) -> None:
    raise typer.Exit(run(PayCardRequest.model_construct(**given), current()))


with_options_of(PayCardRequest, card)  # REQUEST_ID and --no-browser: as the operation declares


def run(opts: PayCardRequest, app_ctx: FaceContext) -> int:
    from svc.engines.submit import pay_card

    if opts.request_id is not None:  # '' is a mistake (an unset variable), not "the latest one"
        request_id_arg(opts.request_id, "REQUEST_ID")
    result = pay_card(app_ctx, opts.request_id, open_browser=not opts.no_browser)
    with app_ctx.output.after_payment(str(result.task["id"])):
        if result.replayed:
            app_ctx.output.note(
                f"request {result.request_id} was already accepted: not charged again"
            )
        app_ctx.output.note(f"request id {result.request_id}")
        show_task(app_ctx, result.task)
    return 0
