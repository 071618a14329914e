"""`svc pay card [REQUEST_ID]`: finish a card payment a submit left waiting for a person."""

from __future__ import annotations

from dataclasses import dataclass

import typer

from svc.cli.app import current
from svc.cli.polled import show_task
from svc.engines.ids import request_id_arg
from svc.ui.face import FaceContext

app: typer.Typer = typer.Typer(rich_markup_mode=None)


@dataclass(frozen=True)
class CardOptions:
    request_id: str | None = None  # None: the latest card payment waiting for a person
    open_browser: bool = True


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
    if request_id is not None:  # '' is a mistake (an unset variable), not "the latest one"
        request_id = request_id_arg(request_id, "REQUEST_ID")
    raise typer.Exit(run(CardOptions(request_id, open_browser=not no_browser), current()))


def run(opts: CardOptions, app_ctx: FaceContext) -> int:
    from svc.engines.submit import pay_card

    result = pay_card(app_ctx, opts.request_id, open_browser=opts.open_browser)
    with app_ctx.output.after_payment(str(result.task["id"])):
        if result.replayed:
            app_ctx.output.note(
                f"request {result.request_id} was already accepted: not charged again"
            )
        app_ctx.output.note(f"request id {result.request_id}")
        show_task(app_ctx, result.task)
    return 0
