"""`svc pay card [REQUEST_ID]`: finish a card payment a submit left waiting for a person."""

from __future__ import annotations

import typer

from svc.api.ids import request_id_arg
from svc.cli.app import current
from svc.engines.poll import show_task

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
    "re-sends the original request unchanged with svc-payment-id, only to the origin the "
    "payment was made for (another --base-url is refused, exit 2). Without a terminal it "
    "checks the status once: paid → sends; not yet → prints the link and exits 6.\n\n"
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
    from svc.engines.submit import pay_card

    if request_id is not None:  # '' is a mistake (an unset variable), not "the latest one"
        request_id = request_id_arg(request_id, "REQUEST_ID")
    app_ctx = current()
    result = pay_card(app_ctx, request_id, open_browser=not no_browser)
    with app_ctx.output.after_payment(str(result.task["id"])):
        if result.replayed:
            app_ctx.output.note(
                f"request {result.request_id} was already accepted: not charged again"
            )
        app_ctx.output.note(f"request id {result.request_id}")
        show_task(app_ctx, result.task)
